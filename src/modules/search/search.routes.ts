import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses } from '../../http/schemas.ts';
import { SearchQuery, SearchResultSchema } from './search.schemas.ts';
import type { SearchService } from './search.service.ts';

export const searchRoutes: FastifyPluginAsyncTypebox<{ search: SearchService }> = async (app, { search }) => {
  app.get(
    '/search',
    {
      config: { operation: 'searchContent', permission: 'search.read', crossOrigin: true },
      schema: {
        operationId: 'searchContent',
        summary:
          'Search what readers can see: one hit per H2 section of a page or a published changelog post, and per reference operation',
        description:
          'Words are stemmed and the last one also matches as a prefix; "exact phrase" and -word are ' +
          'honoured; title and heading matches rank first. Changelog posts (sectionType changelog) are ' +
          'searched unless version_slug or documentation_slug is given. Callable from browsers (CORS), ' +
          'with a key that holds search.read.',
        tags: ['search'],
        querystring: SearchQuery,
        response: { 200: SearchResultSchema, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const body = await search.searchJson(contextOf(request), request.query);
      // Already serialised (and possibly kept as such); the 200 schema documents its shape.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
};
