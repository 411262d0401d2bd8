import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { notModifiedResponse, sendNotModified } from '../../http/conditional.ts';
import { notModified } from '../../shared/entity-tags.ts';
import { ConditionalReadHeaders, withETag } from '../../http/header-schemas.ts';
import { errorResponses } from '../../http/schemas.ts';
import { AllProjectSchema, AllQuery } from './all.schemas.ts';
import { StructureQuery, StructureSchema } from './all.structure.ts';
import type { AllService } from './all.service.ts';

export const allRoutes: FastifyPluginAsyncTypebox<{ all: AllService }> = async (app, { all }) => {
  app.get(
    '/all',
    {
      config: { operation: 'listAll', permission: 'project.read' },
      // An error answer does not carry the tag of the answer it replaces.
      onError: (_request, reply, _error, done) => {
        reply.removeHeader('etag');
        if (!reply.raw.headersSent) reply.raw.removeHeader('etag');
        done();
      },
      schema: {
        operationId: 'listAll',
        summary: 'All versions, documentation sections, references and pages, keyed by id',
        description:
          'published=true keeps only what readers can see: published versions; published sections and ' +
          'references of published versions; listed pages of published sections of published versions.',
        tags: ['all'],
        querystring: AllQuery,
        headers: ConditionalReadHeaders,
        response: { 200: withETag(AllProjectSchema), ...notModifiedResponse, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      // The tag is derived before the answer is built; a client that holds it gets 304 without it.
      const ifNoneMatch = request.headers['if-none-match'];
      const { etag, body, done } = await all.answer(contextOf(request), request.query, (tag) =>
        notModified(ifNoneMatch, tag),
      );
      reply.header('etag', etag);
      if (body === null) return sendNotModified(reply);
      // A streamed answer that fails is Fastify's to end: with an error answer while nothing was
      // sent (see onError), otherwise cut short, which the client sees as a broken one, and logged.
      done?.catch(() => undefined);
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.get(
    '/structure',
    {
      config: { operation: 'readStructure', permission: 'project.read' },
      schema: {
        operationId: 'readStructure',
        summary: "One version's sections, pages and references, without contents",
        description:
          'What a client filling a version needs to plan its writes: section, page and reference ids, ' +
          'titles, slugs, listing, and whether a draft waits. Cheaper than /all (600 a minute).',
        tags: ['all'],
        querystring: StructureQuery,
        response: { 200: StructureSchema, ...errorResponses(404) },
      },
    },
    (request) => all.structure(contextOf(request), request.query.version_slug ?? 'latest'),
  );
};
