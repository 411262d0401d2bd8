import { Type } from '@sinclair/typebox';
import { documentedAs } from '../../http/schemas.ts';
import { CHANGE_KINDS, type ChangeKind } from '../../openapi/definition-diff.types.ts';

export const ReferenceSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String({ description: 'Title of the API reference (info.title of its definition)' }),
    created: Type.String({ description: 'Date of creation, e.g. 2026-11-21T10:15:00+0000' }),
    updated: Type.String({ description: 'Date of last update' }),
    slug: Type.String(),
    ordr: Type.Integer({ description: 'Numerical order in the version' }),
  },
  { title: 'Reference' },
);

const kinds = (breaking: boolean) =>
  Object.entries(CHANGE_KINDS)
    .filter(([, b]) => b === breaking)
    .map(([kind]) => `\`${kind}\``)
    .join(', ');

export const DefinitionChangeSchema = Type.Object(
  {
    kind: Type.Unsafe<ChangeKind>({
      type: 'string',
      enum: Object.keys(CHANGE_KINDS),
      description: 'What changed: a stable identifier',
    }),
    path: Type.String({
      description:
        'Where: a path (`/pets`), an operation (`GET /pets/{id}`), or a place in it such as `GET /pets query.limit` or `POST /pets request application/json body.tags[].name`',
    }),
    message: Type.String({ description: 'The change in words' }),
  },
  { title: 'DefinitionChange' },
);

export const ChangeReportSchema = Type.Object(
  {
    breaking: Type.Array(DefinitionChangeSchema, {
      description: `Changes that can break a client of the old definition: ${kinds(true)}`,
    }),
    nonBreaking: Type.Array(DefinitionChangeSchema, { description: `Other changes: ${kinds(false)}` }),
  },
  {
    title: 'ChangeReport',
    description: 'Sorted by path, kind and message: the same two definitions always give the same report',
  },
);

/** The upload's answer: a Reference, with the change report when it replaced a definition. */
export const UploadedReferenceSchema = Type.Object(
  {
    ...ReferenceSchema.properties,
    changes: Type.Optional({
      ...ChangeReportSchema,
      description:
        'Present when the upload replaced a definition: from it (the published one for a published upload, else the draft, or the other when that one is absent) to the new one',
    }),
  },
  { title: 'UploadedReference' },
);

/** `published`, `draft`, or the number of a revision kept (decision 0033). */
const StoredDefinitionParam = (fallback: 'published' | 'draft', description: string) =>
  Type.Optional(
    Type.Unsafe<string>({
      type: 'string',
      pattern: '^(published|draft|[1-9][0-9]{0,8})$',
      default: fallback,
      description,
    }),
  );

export const ChangesQuery = Type.Object({
  from: StoredDefinitionParam(
    'published',
    'The definition compared from: `published` (default), `draft`, or a revision number (GET /reference/{id}/history)',
  ),
  to: StoredDefinitionParam(
    'draft',
    'The definition compared to: `draft` (default), `published`, or a revision number',
  ),
});

/** A ChangesQuery value as the service takes it. */
export const storedDefinition = (value: string): 'published' | 'draft' | number =>
  value === 'published' || value === 'draft' ? value : Number(value);

export const UploadParams = Type.Object({
  versionId: Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.Literal('latest')], {
    description: 'Version ID, or `latest` for the default version',
  }),
});

export const UploadQuery = Type.Object({
  publish: Type.Optional(
    Type.Boolean({
      default: true,
      description: 'true (default): publish the definition at once; false: write it as the draft',
    }),
  ),
});

export const DefinitionQuery = Type.Object({
  draft: Type.Optional(Type.Boolean({ default: false, description: 'true: the draft definition' })),
  // A plain enum (not a union of literals) so that a bad value is reported as 'must be one of …'.
  format: Type.Optional(
    Type.Unsafe<'auto' | 'yaml' | 'json'>({
      type: 'string',
      enum: ['auto', 'yaml', 'json'],
      default: 'auto',
      description: 'auto: the file as uploaded; yaml or json: converted, keeping key order',
    }),
  ),
});

/** The definition is any OpenAPI document: described, never filtered by a response schema. */
export const DefinitionResponse = {
  description: 'The OpenAPI definition',
  content: {
    'application/json': { schema: Type.Object({}, { additionalProperties: true }) },
    'application/yaml': { schema: Type.String() },
  },
};

/**
 * The upload body. Validation constrains nothing (a multipart body is read by the handler, a raw one
 * arrives as bytes): the service checks the definition. The document says what to send.
 */
export const UploadBody = documentedAs(
  {
    content: {
      'multipart/form-data': {
        schema: {
          properties: {
            file: {
              type: 'string',
              contentMediaType: 'application/octet-stream',
              description: 'The definition file',
            },
          },
          required: ['file'],
        },
      },
      'application/json': { schema: { description: 'The definition, as JSON' } },
      'application/yaml': { schema: { description: 'The definition, as YAML' } },
      'text/yaml': { schema: { description: 'The definition, as YAML' } },
    },
  },
  {
    description:
      'The definition, OpenAPI 3.x or Swagger 2.0, JSON or YAML: as the multipart field `file`, or as the raw body',
    content: {
      'multipart/form-data': {
        schema: Type.Object(
          {
            file: Type.String({
              format: 'binary',
              contentMediaType: 'application/octet-stream',
              description: 'The definition file (JSON or YAML)',
            }),
          },
          { title: 'ReferenceUpload' },
        ),
      },
      'application/json': {
        schema: Type.Object({}, { additionalProperties: true, description: 'The definition, as JSON' }),
      },
      'application/yaml': { schema: Type.String({ description: 'The definition, as YAML' }) },
      'text/yaml': { schema: Type.String({ description: 'The definition, as YAML' }) },
    },
  },
);

export const ReferenceRevisionListSchema = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        revision: Type.Integer({
          description: 'Its number, from 1; usable as from or to of the change report',
        }),
        published: Type.Boolean({ description: 'Whether it was stored as the published definition' }),
        created: Type.String(),
      }),
      { description: 'The revisions kept (the newest 20), newest first' },
    ),
  },
  { title: 'ReferenceRevisionList' },
);
