import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses, IdParam } from '../../http/schemas.ts';
import type { VersionsService } from './versions.service.ts';
import { versionTag } from './versions.presenter.ts';
import { EmptyObject, VersionCreateBody, VersionSchema, VersionUpdateBody } from './versions.schemas.ts';

export const versionsRoutes: FastifyPluginAsyncTypebox<{ versions: VersionsService }> = async (
  app,
  { versions },
) => {
  app.get(
    '/version',
    {
      config: { operation: 'listVersions', permission: 'project.read' },
      schema: {
        operationId: 'listVersions',
        summary: 'List versions (non-deleted, accessible through the key, in order)',
        tags: ['versions'],
        response: { 200: Type.Array(VersionSchema), ...errorResponses() },
      },
    },
    (request) => versions.list(contextOf(request)),
  );

  app.put(
    '/version/:id',
    {
      config: { operation: 'updateVersion', permission: 'version.publish', body: 'json' },
      schema: {
        operationId: 'updateVersion',
        summary: 'Update a version: name, slug, published',
        tags: ['versions'],
        params: IdParam('id', 'Version ID'),
        body: VersionUpdateBody,
        response: { 200: VersionSchema, ...errorResponses(412, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const version = await versions.update(contextOf(request), request.params.id, request.body);
      return reply.header('etag', versionTag(version)).send(version);
    },
  );

  app.post(
    '/version',
    {
      config: { operation: 'createVersion', permission: 'version.edit', body: 'json' },
      schema: {
        operationId: 'createVersion',
        summary: 'Create a version, placed after the others',
        description:
          'The slug is made from the name when absent (unique in the project); unpublished by default.',
        tags: ['versions'],
        body: VersionCreateBody,
        response: { 201: VersionSchema, ...errorResponses(409, 413, 415) },
      },
    },
    async (request, reply) => {
      const version = await versions.create(contextOf(request), request.body);
      return reply.code(201).header('etag', versionTag(version)).send(version);
    },
  );

  app.delete(
    '/version/:id',
    {
      config: { operation: 'deleteVersion', permission: 'version.edit' },
      schema: {
        operationId: 'deleteVersion',
        summary: 'Delete a version and everything in it',
        description: "409 for the project's last published version.",
        tags: ['versions'],
        params: IdParam('id', 'Version ID'),
        response: { 200: EmptyObject, ...errorResponses(412, 404, 409) },
      },
    },
    (request) => versions.delete(contextOf(request), request.params.id),
  );
};
