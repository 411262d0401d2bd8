import { Type, type TSchema } from '@sinclair/typebox';

/*
 * The envelope of Quire's own lists (decision 0035): `{data, cursor, count, total?}`. The platform's
 * lists keep the shapes its clients know (arrays, `{posts…}`, `{hits…}`); a list of Quire's that had
 * another shape before keeps its old field beside the envelope, marked deprecated, for the clients
 * that read it.
 */

export const ListCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass it back as `cursor` for the next page; null at the end',
});

export function listEnvelope<T extends TSchema>(item: T, options: { title: string }) {
  return Type.Object(
    {
      data: Type.Array(item),
      cursor: ListCursor,
      count: Type.Integer({ description: 'Number of entries in this page' }),
      // Sent by the lists that can count every entry at little cost.
      total: Type.Optional(Type.Integer({ description: 'Number of entries in all pages' })),
      // Sent by the lists that had this field before the envelope.
      items: Type.Optional(
        Type.Array(item, {
          deprecated: true,
          description: 'The same entries as `data`, under the name this list used first',
        }),
      ),
    },
    { title: options.title },
  );
}
