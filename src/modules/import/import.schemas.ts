import { Type } from '@sinclair/typebox';
import { documentedAs } from '../../http/schemas.ts';

export const ImportQuery = Type.Object({
  published: Type.Optional(
    Type.Union([Type.Literal('keep'), Type.Literal('draft')], {
      default: 'keep',
      description: 'keep: published bodies stay published; draft: every body arrives as a draft',
    }),
  ),
  strict: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'true: a file that cannot be read as what it should be refuses the whole archive (400); ' +
        'false: it is skipped, and named in warnings',
    }),
  ),
});

/** Validation constrains nothing (the handler reads the archive); the document says what to send. */
export const ImportBody = documentedAs(
  {
    description:
      'The ZIP archive, in the multipart/form-data field `file` (or as a raw application/zip body)',
    content: {
      'multipart/form-data': {
        schema: {
          properties: {
            file: { type: 'string', contentMediaType: 'application/zip', description: 'The archive' },
          },
          required: ['file'],
        },
      },
      'application/zip': { schema: { description: 'The archive, as the raw body' } },
    },
  },
  {
    description:
      'The ZIP archive, in the multipart/form-data field `file` (or as a raw application/zip body)',
    content: {
      'multipart/form-data': {
        schema: Type.Object(
          {
            file: Type.String({
              format: 'binary',
              contentMediaType: 'application/zip',
              description: 'The archive',
            }),
          },
          { title: 'ImportUpload' },
        ),
      },
      'application/zip': {
        schema: Type.String({ format: 'binary', description: 'The archive, as the raw body' }),
      },
    },
  },
);

export const ImportReportSchema = Type.Object(
  {
    versions: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String() }), {
      description: 'The versions added, one per version folder',
    }),
    documentation: Type.Integer({ description: 'Sections created' }),
    categories: Type.Integer(),
    pages: Type.Integer(),
    references: Type.Integer(),
    posts: Type.Optional(
      Type.Integer({ description: "Changelog posts created (an archive in the platform's Git format)" }),
    ),
    warnings: Type.Array(Type.Object({ file: Type.String(), message: Type.String() }), {
      description:
        'What the archive held that Quire has no place for, what was renamed or read otherwise, ' +
        'and the files skipped, each with the reason',
    }),
  },
  { title: 'ImportReport' },
);
