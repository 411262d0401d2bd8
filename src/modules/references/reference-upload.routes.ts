import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError, BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors.ts';
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
        readFile: () => readUploadedFile(request),
      });
      return reply.code(201).send(reference);
    },
  );
};

async function readUploadedFile(request: FastifyRequest): Promise<Buffer | null> {
  if (request.isMultipart()) return readMultipartFile(request);
  if (Buffer.isBuffer(request.body)) return request.body.length > 0 ? request.body : null;
  // Another type reached the catch-all parser, which drained it.
  const type = request.headers['content-type'];
  if (type !== undefined) throw new UnsupportedMediaTypeError(type, 'multipart/form-data');
  return null;
}

/** The part named `file`, a file or a plain field; every other part is read past and dropped. */
async function readMultipartFile(request: FastifyRequest): Promise<Buffer | null> {
  let file: Buffer | null = null;
  try {
    for await (const part of request.parts()) {
      const wanted = part.fieldname === 'file' && file === null;
      if (part.type === 'file') {
        if (wanted) file = await part.toBuffer();
        else part.file.resume();
      } else if (wanted) {
        if (part.valueTruncated) throw new PayloadTooLargeError(TOO_LARGE);
        if (typeof part.value !== 'string') {
          throw new BadRequestError("The multipart field 'file' must hold the definition as text or a file.");
        }
        file = Buffer.from(part.value, 'utf8');
      }
    }
  } catch (error) {
    throw multipartError(error);
  }
  return file;
}

function multipartError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const e = error as { code?: unknown; statusCode?: unknown; message?: unknown };
  if (e.code === 'FST_REQ_FILE_TOO_LARGE') return new PayloadTooLargeError(TOO_LARGE);
  // The plugin's own limit errors (413) and prototype-name refusals (400) keep their status.
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return error;
  // busboy reports a malformed body (no boundary, truncated part…) as a plain Error.
  return new BadRequestError(`Malformed multipart/form-data body: ${String(e.message ?? error)}`);
}
