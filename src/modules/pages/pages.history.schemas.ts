import { Type } from '@sinclair/typebox';

export const HistoryQuery = Type.Object({
  hits: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

export const RevisionParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Page ID' }),
  revision: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Revision number, from 1' }),
});

const UserSchema = Type.Union(
  [Type.Object({ id: Type.Integer(), email: Type.String(), name: Type.String() }), Type.Null()],
  {
    description: 'The user of the key that made the revision; null for a key without one, the CLI, an import',
  },
);

export const RevisionSchema = Type.Object(
  {
    revision: Type.Integer(),
    operation: Type.String({ description: 'create, update or publish' }),
    message: Type.String(),
    title: Type.String(),
    slug: Type.String(),
    created: Type.String(),
    user: UserSchema,
  },
  { title: 'Revision' },
);

export const RevisionListSchema = Type.Object(
  {
    data: Type.Array(RevisionSchema),
    count: Type.Integer({ description: 'Revisions in this answer' }),
    total: Type.Integer({ description: 'Revisions of the page' }),
    cursor: Type.Union([Type.String(), Type.Null()], { description: 'For the next answer; null at the end' }),
  },
  { title: 'RevisionList' },
);
