import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses, IdParam } from '../../http/schemas.ts';
import {
  PageBySlugQuery,
  PageCreateBody,
  PageFormatQuery,
  PageSchema,
  PageUpdateBody,
} from './pages.schemas.ts';
import type { PagesService } from './pages.service.ts';

export const pagesRoutes: FastifyPluginAsyncTypebox<{ pages: PagesService }> = async (app, { pages }) => {
  app.post(
    '/documentation/:id/page',
    {
      config: { operation: 'createPage', permission: 'page.edit', body: 'json' },
      schema: {
        operationId: 'createPage',
        summary: 'Create a page in a documentation section (draft contents, not listed)',
        tags: ['pages'],
        params: IdParam('id', 'Documentation ID'),
        body: PageCreateBody,
        response: { 200: PageSchema, ...errorResponses(404, 409, 413, 415) },
      },
    },
    (request) => pages.create(contextOf(request), request.params.id, request.body),
  );

  app.put(
    '/page/:id',
    {
      config: { operation: 'updatePage', permission: 'page.edit', body: 'json' },
      schema: {
        operationId: 'updatePage',
        summary: 'Update the title, slug or draft contents of a page',
        tags: ['pages'],
        params: IdParam('id', 'Page ID'),
        body: PageUpdateBody,
        response: { 200: PageSchema, ...errorResponses(404, 409, 413, 415) },
      },
    },
    (request) => pages.update(contextOf(request), request.params.id, request.body),
  );

  app.put(
    '/page/:id/publish',
    {
      config: { operation: 'publishPage', permission: 'page.publish' },
      schema: {
        operationId: 'publishPage',
        summary: 'Publish the draft contents of a page',
        tags: ['pages'],
        params: IdParam('id', 'Page ID'),
        response: { 200: PageSchema, ...errorResponses(404) },
      },
    },
    (request) => pages.publish(contextOf(request), request.params.id),
  );

  app.get(
    '/page',
    {
      config: { operation: 'getPageBySlug', permission: 'page.read' },
      schema: {
        operationId: 'getPageBySlug',
        summary:
          'Read a page by slugs: version_id or version_slug, documentation_id or documentation_slug, and page_slug',
        tags: ['pages'],
        querystring: PageBySlugQuery,
        response: { 200: PageSchema, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const body = await pages.getBySlugs(contextOf(request), request.query);
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.get(
    '/page/:id',
    {
      config: { operation: 'readPage', permission: 'page.read' },
      schema: {
        operationId: 'readPage',
        summary: 'Read a page, its contents in the chosen format',
        tags: ['pages'],
        params: IdParam('id', 'Page ID'),
        querystring: PageFormatQuery,
        response: { 200: PageSchema, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const body = await pages.getJson(
        contextOf(request),
        request.params.id,
        request.query.format ?? 'darkdown',
      );
      // Already serialised (and possibly cached as such): Fastify sends a string or a buffer as it
      // is, and the 200 schema still documents its shape.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
};
