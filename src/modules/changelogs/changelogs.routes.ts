import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses, IdParam } from '../../http/schemas.ts';
import {
  ChangelogPostCreateBody,
  ChangelogPostListQuery,
  ChangelogPostListSchema,
  ChangelogPostSchema,
} from './changelogs.schemas.ts';
import type { ChangelogsService } from './changelogs.service.ts';

/** Changelog posts over HTTP (N5/N6). */
export const changelogsRoutes: FastifyPluginAsyncTypebox<{ changelogs: ChangelogsService }> = async (
  app,
  { changelogs },
) => {
  app.post(
    '/changelog/:id/post',
    {
      config: { operation: 'createChangelogPost', permission: 'changelog.edit', body: 'json' },
      schema: {
        operationId: 'createChangelogPost',
        summary: 'Write a post in a changelog (unpublished unless published is true)',
        description:
          'Contents in Darkdown. The slug is made from the title when absent, unique in the changelog ' +
          '(-2, -3…); a slug given that another post of the changelog holds is a 409. A published post ' +
          'is searchable at once.',
        tags: ['changelogs'],
        params: IdParam('id', 'Changelog ID'),
        body: ChangelogPostCreateBody,
        response: {
          200: { ...ChangelogPostSchema, description: 'The post as written, its contents in Darkdown' },
          ...errorResponses(404, 409, 413, 415),
        },
      },
    },
    (request) => changelogs.createPost(contextOf(request), request.params.id, request.body),
  );

  app.get(
    '/changelog/:id/post',
    {
      config: { operation: 'listChangelogPosts', permission: 'changelog.read' },
      schema: {
        operationId: 'listChangelogPosts',
        summary: "A changelog's posts, newest first, published or not",
        description:
          'count posts at a time (at most 50); pass the returned cursor back for the next ones. ' +
          'Contents in the chosen format, read like a page’s.',
        tags: ['changelogs'],
        params: IdParam('id', 'Changelog ID'),
        querystring: ChangelogPostListQuery,
        response: {
          200: { ...ChangelogPostListSchema, description: 'Posts, newest first, and the cursor to the next' },
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const body = await changelogs.listPostsJson(contextOf(request), request.params.id, request.query);
      // Already serialised (large contents come from worker threads as bytes); the 200 schema
      // documents its shape.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
};
