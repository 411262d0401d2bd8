import { Type, type TSchema } from '@sinclair/typebox';

const MAX_ID = 2147483647;

export const AllQuery = Type.Object({
  published: Type.Optional(
    Type.Boolean({ description: 'true: only what readers can see (default false: everything)' }),
  ),
  versionId: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: MAX_ID }), Type.Literal('latest')], {
      description: 'Only this version; the word `latest` selects the default version',
    }),
  ),
});

export const AllPageSchema = Type.Object(
  {
    title: Type.String(),
    slug: Type.String(),
    path: Type.String({ description: '<version-slug>/<documentation-slug>/<page-slug>' }),
    documentationId: Type.Integer(),
    listed: Type.Boolean(),
    updated: Type.String(),
  },
  { title: 'AllPage' },
);

export const AllDocumentationSchema = Type.Object(
  {
    title: Type.String(),
    slug: Type.String(),
    versionId: Type.Integer(),
    published: Type.Boolean(),
    ordr: Type.Integer(),
  },
  { title: 'AllDocumentation' },
);

export const AllReferenceSchema = Type.Object(
  {
    title: Type.String(),
    slug: Type.String(),
    versionId: Type.Integer(),
    published: Type.Boolean(),
    ordr: Type.Integer(),
  },
  { title: 'AllReference' },
);

export const AllVersionSchema = Type.Object(
  {
    name: Type.String(),
    slug: Type.String(),
    published: Type.Boolean(),
    ordr: Type.Integer(),
  },
  { title: 'AllVersion' },
);

/** A dictionary keyed by resource id (as a string). */
const ById = <T extends TSchema>(item: T, description: string) =>
  Type.Object({}, { additionalProperties: item, description });

export const AllProjectSchema = Type.Object(
  {
    page: ById(AllPageSchema, 'Page ID → page details'),
    documentation: ById(AllDocumentationSchema, 'Documentation ID → documentation details'),
    reference: ById(AllReferenceSchema, 'Reference ID → reference details'),
    version: ById(AllVersionSchema, 'Version ID → version details'),
  },
  { title: 'AllProject' },
);
