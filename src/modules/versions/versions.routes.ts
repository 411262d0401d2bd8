import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contextOf } from '../../http/change-context.ts';
import { ConditionalWriteHeaders, withETag } from '../../http/header-schemas.ts';
import { errorResponses, IdParam } from '../../http/schemas.ts';
import type { VersionsService } from './versions.service.ts';
import { versionTag } from './versions.presenter.ts';
import {
  EmptyObject,
  VersionCloneBody,
  VersionCreateBody,
  VersionReportPageSchema,
  VersionReportQuery,
  VersionSchema,
  VersionUpdateBody,
} from './versions.schemas.ts';

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
        description:
          'Versions that are not deleted, in `ordr` order; a key limited to some versions sees only those.',
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
        description:
          'Any of name, slug and published; an empty body is a 400. A slug another version holds is a 409. Honours If-Match (412 when stale); the answer carries the new ETag.',
        tags: ['versions'],
        params: IdParam('id', 'Version ID'),
        body: VersionUpdateBody,
        headers: ConditionalWriteHeaders,
        response: { 200: withETag(VersionSchema), ...errorResponses(412, 404, 409, 413, 415) },
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
        response: { 201: withETag(VersionSchema), ...errorResponses(409, 413, 415) },
      },
    },
    async (request, reply) => {
      const version = await versions.create(contextOf(request), request.body);
      return reply.code(201).header('etag', versionTag(version)).send(version);
    },
  );

  app.get(
    '/version/:id/report',
    {
      config: { operation: 'versionReport', permission: 'project.read' },
      schema: {
        operationId: 'versionReport',
        summary: 'Every page of a version: draft state, listing, who created and last updated it',
        description:
          '`…By` is the user whose key made the change (every field null when the change had no user: a ' +
          'key without a user, the CLI, an import). `source…` follows clones back to the first page.',
        tags: ['versions'],
        params: IdParam('id', 'Version ID'),
        querystring: VersionReportQuery,
        response: { 200: Type.Array(VersionReportPageSchema), ...errorResponses(404) },
      },
    },
    (request) => versions.report(contextOf(request), request.params.id, request.query.created_by_email),
  );

  app.post(
    '/version/:id/clone',
    {
      config: { operation: 'cloneVersion', permission: 'version.edit', body: 'json' },
      schema: {
        operationId: 'cloneVersion',
        summary: 'Clone a version: its sections, categories, pages and references',
        description:
          'One transaction. The clone is unpublished and becomes the first version; its slug comes from ' +
          'the name when absent (made unique). Links naming the source version (`/<slug>/…`) are ' +
          're-pointed at the clone. Each copied page remembers its source (see the version report).',
        tags: ['versions'],
        params: IdParam('id', 'Version ID'),
        body: VersionCloneBody,
        response: { 201: withETag(VersionSchema), ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const version = await versions.clone(contextOf(request), request.params.id, request.body);
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
        headers: ConditionalWriteHeaders,
        response: { 200: EmptyObject, ...errorResponses(412, 404, 409) },
      },
    },
    (request) => versions.delete(contextOf(request), request.params.id),
  );
};
