import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readUploadedFile } from '../../http/multipart-file.ts';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { ReferencesService } from './references.service.ts';
import { ReferenceSchema, UploadBody, UploadParams, UploadQuery } from './references.schemas.ts';

/** Reference files may be larger than JSON bodies (5 MiB): decisions.md §4. */
const UPLOAD_LIMIT = 8 * 1024 * 1024;
const RAW_TYPES = ['application/json', 'application/yaml', 'text/yaml'];
const TOO_LARGE = `The file is larger than ${UPLOAD_LIMIT / 1024 / 1024} MiB.`;

/**
 * The upload operation in a plugin of its own: multipart and the raw JSON/YAML body parsers exist
 * only inside it, so every other route keeps answering 415 to those types, and the JSON routes keep
 * their parsed bodies while this one receives the bytes as sent.
 */
export const referenceUploadRoutes: FastifyPluginAsyncTypebox<{ references: ReferencesService }> = async (
  app,
  { references },
) => {
  await app.register(multipart, {
    limits: { fileSize: UPLOAD_LIMIT, fieldSize: UPLOAD_LIMIT, parts: 20 },
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(RAW_TYPES, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post(
    '/version/:versionId/reference',
    {
      bodyLimit: UPLOAD_LIMIT,
      // No `permission` here: it depends on `publish`, and the service checks it before reading the file.
      config: { operation: 'uploadReference', body: 'custom' },
      schema: {
        operationId: 'uploadReference',
        summary: 'Add or update an API reference from an OpenAPI file',
        description:
          'The definition (OpenAPI 3.0, 3.1 or Swagger 2.0, JSON or YAML) in the multipart/form-data field ' +
          '`file`, or as the raw body typed application/json, application/yaml or text/yaml. The reference ' +
          'of the version with the same info.title is updated, otherwise one is created. Needs ' +
          '`reference.publish`, or `reference.edit` when publish is false.',
        tags: ['references'],
        // What the service checks, for the document: the pipeline checks no permission here.
        'x-permission': 'reference.publish',
        'x-permission-alternatives': [{ permission: 'reference.edit', when: 'publish=false' }],
        body: UploadBody,
        params: UploadParams,
        querystring: UploadQuery,
        response: { 201: ReferenceSchema, ...errorResponses(404, 413, 415) },
      },
    },
    async (request, reply) => {
      const reference = await references.upload(contextOf(request), {
        versionId: request.params.versionId,
        publish: request.query.publish ?? true,
        readFile: () => readUploadedFile(request, TOO_LARGE),
      });
      return reply.code(201).send(reference);
    },
  );
};
