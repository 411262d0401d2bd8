import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contextOf } from '../../http/change-context.ts';
import { ConditionalWriteHeaders, withETag } from '../../http/header-schemas.ts';
import { errorResponses, IdParam } from '../../http/schemas.ts';
import {
  CategoryCreateBody,
  CategorySchema,
  DeleteQuery,
  DocumentationCreateBody,
  DocumentationSchema,
  DocumentationUpdateBody,
} from './documentation.schemas.ts';
import { EmptyObject } from '../versions/versions.schemas.ts';
import type { DocumentationService } from './documentation.service.ts';
import { documentationTag } from './documentation.presenter.ts';

export const documentationRoutes: FastifyPluginAsyncTypebox<{ documentation: DocumentationService }> = async (
  app,
  { documentation },
) => {
  app.get(
    '/version/:versionId/documentation',
    {
      config: { operation: 'listDocumentation', permission: 'project.read' },
      schema: {
        operationId: 'listDocumentation',
        summary: 'List the documentation sections of a version',
        description: 'The sections of the version that are not deleted, in `ordr` order, published or not.',
        tags: ['documentation'],
        params: IdParam('versionId', 'Version ID'),
        response: { 200: Type.Array(DocumentationSchema), ...errorResponses(404) },
      },
    },
    (request) => documentation.listForVersion(contextOf(request), request.params.versionId),
  );

  app.post(
    '/version/:versionId/documentation',
    {
      config: { operation: 'createDocumentation', permission: 'documentation.edit', body: 'json' },
      schema: {
        operationId: 'createDocumentation',
        summary: 'Create a documentation section in a version, placed after the others',
        description:
          'The slug is made from the title when absent, unique in the version; a slug given that another section holds is a 409. Unpublished unless published is true.',
        tags: ['documentation'],
        params: IdParam('versionId', 'Version ID'),
        body: DocumentationCreateBody,
        response: { 201: withETag(DocumentationSchema), ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await documentation.create(contextOf(request), request.params.versionId, request.body);
      return reply.code(201).header('etag', documentationTag(created)).send(created);
    },
  );

  app.put(
    '/documentation/:id',
    {
      config: { operation: 'updateDocumentation', permission: 'documentation.edit', body: 'json' },
      schema: {
        operationId: 'updateDocumentation',
        summary: 'Update a section: title, slug, published, place (ordr)',
        description:
          "Any of title, slug, published and ordr (its place among the version's sections). Honours If-Match (412 when stale).",
        tags: ['documentation'],
        params: IdParam('id', 'Documentation ID'),
        body: DocumentationUpdateBody,
        headers: ConditionalWriteHeaders,
        response: { 200: withETag(DocumentationSchema), ...errorResponses(412, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const updated = await documentation.update(contextOf(request), request.params.id, request.body);
      return reply.header('etag', documentationTag(updated)).send(updated);
    },
  );

  app.delete(
    '/documentation/:id',
    {
      config: { operation: 'deleteDocumentation', permission: 'documentation.edit' },
      schema: {
        operationId: 'deleteDocumentation',
        summary: 'Delete a section (409 while it holds pages, unless cascade=true)',
        description:
          'A section that still holds pages is kept (409) unless cascade=true, which deletes its pages with it. Honours If-Match (412 when stale).',
        tags: ['documentation'],
        params: IdParam('id', 'Documentation ID'),
        querystring: DeleteQuery,
        headers: ConditionalWriteHeaders,
        response: { 200: EmptyObject, ...errorResponses(412, 404, 409) },
      },
    },
    (request) => documentation.delete(contextOf(request), request.params.id, request.query.cascade ?? false),
  );

  app.post(
    '/documentation/:id/category',
    {
      config: { operation: 'createCategory', permission: 'documentation.edit', body: 'json' },
      schema: {
        operationId: 'createCategory',
        summary: "Add a category at the end of a section's index",
        description:
          "Categories group pages in a section's index; a page joins one with categoryTitle (case-insensitive) when created or moved.",
        tags: ['documentation'],
        params: IdParam('id', 'Documentation ID'),
        body: CategoryCreateBody,
        response: { 201: CategorySchema, ...errorResponses(404, 413, 415) },
      },
    },
    async (request, reply) => {
      const category = await documentation.createCategory(
        contextOf(request),
        request.params.id,
        request.body.title,
      );
      return reply.code(201).send({ id: category.id, title: category.title, position: category.position });
    },
  );
};
