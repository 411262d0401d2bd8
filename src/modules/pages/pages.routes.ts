import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { notModifiedResponse, sendNotModified } from '../../http/conditional.ts';
import { notModified } from '../../shared/entity-tags.ts';
import { ConditionalReadHeaders, ConditionalWriteHeaders, withETag } from '../../http/header-schemas.ts';
import { errorResponses, IdParam } from '../../http/schemas.ts';
import {
  PageBySlugQuery,
  PageCreateBody,
  PageFormatQuery,
  PageSchema,
  PageUpdateBody,
} from './pages.schemas.ts';
import { HistoryQuery, RevisionListSchema, RevisionParams } from './pages.history.schemas.ts';
import type { PagesService } from './pages.service.ts';
import { EmptyObject } from '../versions/versions.schemas.ts';
import { pageTag, type Page } from './pages.presenter.ts';
import type { FastifyReply } from 'fastify';

export const pagesRoutes: FastifyPluginAsyncTypebox<{ pages: PagesService }> = async (app, { pages }) => {
  app.post(
    '/documentation/:id/page',
    {
      config: { operation: 'createPage', permission: 'page.edit', body: 'json' },
      schema: {
        operationId: 'createPage',
        summary: 'Create a page in a documentation section (draft contents, not listed)',
        description:
          "The content is the page's draft, in Darkdown; the page is not listed until published. The slug is made from the title when absent, unique in the section; a slug given that another page holds is a 409. categoryTitle names an existing category of the section (case-insensitive; none matching is a 400). The message is kept in the page's history.",
        tags: ['pages'],
        params: IdParam('id', 'Documentation ID'),
        body: PageCreateBody,
        response: { 200: withETag(PageSchema), ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request, reply) =>
      tagged(reply, await pages.create(contextOf(request), request.params.id, request.body)),
  );

  app.put(
    '/page/:id',
    {
      config: { operation: 'updatePage', permission: 'page.edit', body: 'json' },
      schema: {
        operationId: 'updatePage',
        summary: 'Update the title, slug or draft contents of a page',
        description:
          'Any of title, slug, draft content, listed, and a move (categoryTitle or parentId); absent fields stay. A title without a slug regenerates the slug from the title. Honours If-Match (412 when stale); the answer carries the new ETag.',
        tags: ['pages'],
        params: IdParam('id', 'Page ID'),
        body: PageUpdateBody,
        headers: ConditionalWriteHeaders,
        response: { 200: withETag(PageSchema), ...errorResponses(412, 404, 409, 413, 415) },
      },
    },
    async (request, reply) =>
      tagged(reply, await pages.update(contextOf(request), request.params.id, request.body)),
  );

  app.put(
    '/page/:id/publish',
    {
      config: { operation: 'publishPage', permission: 'page.publish' },
      schema: {
        operationId: 'publishPage',
        summary: 'Publish the draft contents of a page',
        description:
          'Copies the draft to the published contents, lists the page and clears the draft. A page without a pending draft is answered unchanged. Honours If-Match (412 when stale).',
        tags: ['pages'],
        params: IdParam('id', 'Page ID'),
        headers: ConditionalWriteHeaders,
        response: { 200: withETag(PageSchema), ...errorResponses(412, 404) },
      },
    },
    async (request, reply) => tagged(reply, await pages.publish(contextOf(request), request.params.id)),
  );

  app.delete(
    '/page/:id',
    {
      config: { operation: 'deletePage', permission: 'page.delete' },
      schema: {
        operationId: 'deletePage',
        summary: 'Delete a page and its sub-pages',
        description:
          'Gone at once from every read, listing, search, export and report (404 afterwards). The rows ' +
          'are kept 30 days: POST /page/{id}/restore brings the page back until then.',
        tags: ['pages'],
        params: IdParam('id', 'Page ID'),
        headers: ConditionalWriteHeaders,
        response: { 200: EmptyObject, ...errorResponses(412, 404) },
      },
    },
    async (request) => {
      await pages.delete(contextOf(request), request.params.id);
      return {};
    },
  );

  app.post(
    '/page/:id/restore',
    {
      config: { operation: 'restorePage', permission: 'page.delete' },
      schema: {
        operationId: 'restorePage',
        summary: 'Restore a deleted page, with the sub-pages deleted with it',
        description:
          'The page comes back with its history. A slug another page took meanwhile is made unique ' +
          '(`-2`, `-3`…). 409 when the page is not deleted, or when it went with its parent page: restore ' +
          'the parent.',
        tags: ['pages'],
        params: IdParam('id', 'Page ID'),
        response: { 200: withETag(PageSchema), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => tagged(reply, await pages.restore(contextOf(request), request.params.id)),
  );

  app.get(
    '/page',
    {
      config: { operation: 'getPageBySlug', permission: 'page.read' },
      schema: {
        operationId: 'getPageBySlug',
        summary:
          'Read a page by slugs: version_id or version_slug, documentation_id or documentation_slug, and page_slug',
        description:
          'Give version_id or version_slug (`latest`: the default version), documentation_id or documentation_slug, and page_slug; a 400 names every one missing. Contents in the chosen format, as for readPage.',
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
        description:
          'Draft and published contents, read in darkdown (as stored), markdown, html or text; a null content stays null. Sends a strong ETag; a matching If-None-Match is a 304.',
        tags: ['pages'],
        params: IdParam('id', 'Page ID'),
        querystring: PageFormatQuery,
        headers: ConditionalReadHeaders,
        response: { 200: withETag(PageSchema), ...notModifiedResponse, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { body, etag } = await pages.getJson(
        contextOf(request),
        request.params.id,
        request.query.format ?? 'darkdown',
      );
      reply.header('etag', etag);
      if (notModified(request.headers['if-none-match'], etag)) return sendNotModified(reply);
      // Already serialised (and possibly cached as such): Fastify sends a string or a buffer as it
      // is, and the 200 schema still documents its shape.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.get(
    '/page/:id/history',
    {
      config: { operation: 'listPageHistory', permission: 'page.read' },
      schema: {
        operationId: 'listPageHistory',
        summary: "A page's revisions, newest first",
        description:
          'Every create, update and publish, numbered from 1. Pass the returned cursor back for more.',
        tags: ['pages'],
        params: IdParam('id', 'Page ID'),
        querystring: HistoryQuery,
        response: { 200: RevisionListSchema, ...errorResponses(404) },
      },
    },
    (request) => pages.history(contextOf(request), request.params.id, request.query),
  );

  app.get(
    '/page/:id/history/:revision',
    {
      config: { operation: 'readPageRevision', permission: 'page.read' },
      schema: {
        operationId: 'readPageRevision',
        summary: 'One revision of a page, its contents in the chosen format',
        description:
          'The page as that revision left it (title, slug and contents), read in the chosen format.',
        tags: ['pages'],
        params: RevisionParams,
        querystring: PageFormatQuery,
        response: { 200: PageSchema, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { id, revision } = request.params;
      const body = await pages.revisionJson(
        contextOf(request),
        id,
        revision,
        request.query.format ?? 'darkdown',
      );
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.post(
    '/page/:id/history/:revision/restore',
    {
      config: { operation: 'restorePageRevision', permission: 'page.edit' },
      schema: {
        operationId: 'restorePageRevision',
        summary: "Make a revision's content the page's draft again (a new revision)",
        description:
          "The revision's content becomes the draft, recorded as a new revision with the message `Restored revision N`; publish the page to show it to readers.",
        tags: ['pages'],
        params: RevisionParams,
        response: { 200: withETag(PageSchema), ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      tagged(
        reply,
        await pages.restoreRevision(contextOf(request), request.params.id, request.params.revision),
      ),
  );
};

/** A page a write answers with, and its tag for a later If-Match. */
function tagged(reply: FastifyReply, page: Page): Page {
  reply.header('etag', pageTag(page));
  return page;
}
