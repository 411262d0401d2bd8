import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses } from '../../http/schemas.ts';
import { ExportQuery, ExportResponse } from './export.schemas.ts';
import type { ExportService } from './export.service.ts';

export const exportRoutes: FastifyPluginAsyncTypebox<{ exports: ExportService }> = async (
  app,
  { exports },
) => {
  app.get(
    '/export',
    {
      config: { operation: 'exportProject', permission: 'project.export' },
      schema: {
        operationId: 'exportProject',
        summary: 'Export the project as a ZIP archive (enterprise plans only)',
        description:
          '<Version name>/<Documentation title>/<n> <Page title>.md in index order (categories as ' +
          '`type: category` entries, children in a folder named after their page), settings.json per ' +
          'section, <Version name>/refs/<slug>.<yaml|json> as uploaded, and manifest.json. Made from ' +
          "one snapshot of the database while it is sent. With format=markdoc, the platform's Git " +
          'layout instead: developerhub.yaml, <version slug>/_settings.yaml, <section slug>/ with ' +
          '_settings.yaml, _nav.yaml and Markdoc pages, refs/, changelogs/ (no manifest).',
        tags: ['export'],
        querystring: ExportQuery,
        response: { 200: ExportResponse, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const aborted = new AbortController();
      // The client went away before the archive was complete: stop reading and writing.
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) aborted.abort(new Error('The client closed the connection.'));
      });
      const { stream, done } = await exports.open(
        contextOf(request),
        { format: request.query.format ?? 'darkdown', versionSlug: request.query.version_slug },
        aborted.signal,
      );
      done.catch((error: unknown) => {
        if (aborted.signal.aborted) return;
        // Too late for an error answer: the archive is cut short, which the client sees as a broken one.
        request.log.error({ err: error }, 'export failed while streaming');
        stream.destroy(error instanceof Error ? error : new Error(String(error)));
      });
      const name = `export-${request.query.format ?? 'darkdown'}.zip`;
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(stream as never);
    },
  );
};
