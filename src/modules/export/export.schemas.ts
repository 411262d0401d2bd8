import { Type, type Static } from '@sinclair/typebox';

export const ExportQuery = Type.Object({
  format: Type.Optional(
    Type.Union([Type.Literal('darkdown'), Type.Literal('markdown'), Type.Literal('markdoc')], {
      default: 'darkdown',
      description:
        "Page bodies as stored (darkdown) or converted to Markdown, in Quire's layout; or (markdoc) the platform's Git layout with Markdoc pages",
    }),
  ),
  version_slug: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Only this version (`latest`: the default one)',
    }),
  ),
});
export type ExportQueryInput = Static<typeof ExportQuery>;

export const ExportResponse = {
  description: 'A ZIP archive of the project, streamed as it is made',
  content: { 'application/zip': { schema: Type.String({ format: 'binary' }) } },
};
