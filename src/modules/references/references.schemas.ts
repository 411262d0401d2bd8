import { Type } from '@sinclair/typebox';
import { documentedAs } from '../../http/schemas.ts';

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
