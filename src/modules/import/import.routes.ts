import type { IncomingMessage } from 'node:http';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BadRequestError } from '../../errors.ts';
import { contextOf } from '../../http/change-context.ts';
import { readUploadedFile } from '../../http/multipart-file.ts';
import { errorResponses } from '../../http/schemas.ts';
import { readStreamedBody } from '../../http/streamed-body.ts';
import { ARCHIVE_LIMITS } from './import.archive.ts';
import { ImportBody, ImportQuery, ImportReportSchema } from './import.schemas.ts';
import type { ImportService } from './import.service.ts';

const LIMIT = ARCHIVE_LIMITS.uploadBytes;
const TOO_LARGE = `The archive is larger than ${LIMIT / 1024 / 1024} MiB.`;

/** The import in a plugin of its own: multipart and the raw ZIP body exist only inside it. */
export const importRoutes: FastifyPluginAsyncTypebox<{ imports: ImportService }> = async (
  app,
  { imports },
) => {
  await app.register(multipart, { limits: { fileSize: LIMIT, fieldSize: 1024, parts: 20 } });
  app.removeContentTypeParser('application/json');
  // Read as it arrives, never joined in one turn (an archive may be 64 MiB).
  app.addContentTypeParser(
    'application/zip',
    { bodyLimit: LIMIT },
    (request: FastifyRequest, payload: IncomingMessage) =>
      readStreamedBody(request, payload, LIMIT, TOO_LARGE),
  );

  app.post(
    '/import',
    {
      bodyLimit: LIMIT,
      config: { operation: 'importProject', permission: 'project.import', body: 'custom' },
      schema: {
        operationId: 'importProject',
        summary: 'Import an export archive as new versions of the project',
        description:
          "Quire's exports, the platform's Darkdown exports (numbered page files, category entries, " +
          "child folders, settings.json per section, refs/) and the platform's Git format " +
          '(developerhub.yaml or _settings.yaml sections, Markdoc pages). Versions are always added, and ' +
          'the import is seen whole or not at all: nothing of it is visible before it answers, and a ' +
          'failed import leaves nothing behind; ' +
          'a file that cannot be read is skipped with a warning (refused with strict=true). ' +
          `At most ${LIMIT / 1024 / 1024} MiB uploaded, ${ARCHIVE_LIMITS.totalBytes / 1024 / 1024} MiB ` +
          `inflated, ${ARCHIVE_LIMITS.entries} entries.`,
        tags: ['import'],
        body: ImportBody,
        querystring: ImportQuery,
        response: { 201: ImportReportSchema, ...errorResponses(413, 415) },
      },
    },
    async (request, reply) => {
      const bytes = await readUploadedFile(request, TOO_LARGE);
      if (bytes === null) {
        throw new BadRequestError(
          "No archive was uploaded: send it in the multipart/form-data field 'file' (or as a raw application/zip body).",
        );
      }
      const report = await imports.import(contextOf(request), bytes, {
        published: request.query.published ?? 'keep',
        strict: request.query.strict ?? false,
      });
      return reply.code(201).send(report);
    },
  );
};
