import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { notModifiedResponse, sendNotModified } from '../../http/conditional.ts';
import { ConditionalReadHeaders, withETag } from '../../http/header-schemas.ts';
import { errorResponses, IdParam } from '../../http/schemas.ts';
import { referenceUploadRoutes } from './reference-upload.routes.ts';
import type { ReferencesService } from './references.service.ts';
import {
  ChangeReportSchema,
  ChangesQuery,
  DefinitionQuery,
  DefinitionResponse,
  ReferenceRevisionListSchema,
  ReferenceSchema,
  storedDefinition,
} from './references.schemas.ts';

const CONTENT_TYPES = { json: 'application/json; charset=utf-8', yaml: 'application/yaml; charset=utf-8' };

export const referencesRoutes: FastifyPluginAsyncTypebox<{ references: ReferencesService }> = async (
  app,
  { references },
) => {
  app.get(
    '/reference/:id/definition',
    {
      config: { operation: 'readReferenceDefinition', permission: 'reference.read' },
      schema: {
        operationId: 'readReferenceDefinition',
        summary: 'Read the OpenAPI definition of a reference (published, or the draft)',
        description:
          'format=auto gives the file exactly as uploaded (YAML as application/yaml text, JSON as a JSON object); yaml and json convert it, keeping key order. 404 when the reference has no published definition (draft=false) or no draft (draft=true). Sends a strong ETag; a matching If-None-Match is a 304.',
        tags: ['references'],
        params: IdParam('id', 'Reference ID'),
        querystring: DefinitionQuery,
        headers: ConditionalReadHeaders,
        response: { 200: withETag(DefinitionResponse), ...notModifiedResponse, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { draft = false, format: asked = 'auto' } = request.query;
      const read = await references.readDefinition(contextOf(request), request.params.id, {
        draft,
        format: asked,
        ifNoneMatch: request.headers['if-none-match'],
      });
      reply.header('etag', read.etag);
      if (read.notModified === true) return sendNotModified(reply);
      // Sent as text, never re-serialised: `auto` gives the stored bytes exactly.
      return reply.type(CONTENT_TYPES[read.format]).send(read.text);
    },
  );

  app.get(
    '/reference/:id/changes',
    {
      config: { operation: 'readReferenceChanges', permission: 'reference.read' },
      schema: {
        operationId: 'readReferenceChanges',
        summary: 'The API change report between the published and the draft definition',
        description:
          'What changed from one stored definition of the reference to the other (by default from the published one to the draft), split into breaking and non-breaking changes. `from` and `to` also take a revision number of its history (the newest 20 are kept). 404 when the reference has no such definition (an unpublished reference has no published one) or no such revision kept.',
        tags: ['references'],
        params: IdParam('id', 'Reference ID'),
        querystring: ChangesQuery,
        response: { 200: ChangeReportSchema, ...errorResponses(404) },
      },
    },
    (request) =>
      references.changeReport(contextOf(request), request.params.id, {
        from: storedDefinition(request.query.from ?? 'published'),
        to: storedDefinition(request.query.to ?? 'draft'),
      }),
  );

  app.get(
    '/reference/:id/history',
    {
      config: { operation: 'listReferenceRevisions', permission: 'reference.read' },
      schema: {
        operationId: 'listReferenceRevisions',
        summary: 'The revisions of a reference kept, newest first',
        description:
          'Every definition stored (an upload, as draft or published, and a publish of the draft) is a revision, numbered from 1; the newest 20 are kept. No definitions: compare two with GET /reference/{id}/changes?from=&to=.',
        tags: ['references'],
        params: IdParam('id', 'Reference ID'),
        response: { 200: ReferenceRevisionListSchema, ...errorResponses(404) },
      },
    },
    (request) => references.history(contextOf(request), request.params.id),
  );

  app.put(
    '/reference/:id/publish',
    {
      config: { operation: 'publishReference', permission: 'reference.publish' },
      schema: {
        operationId: 'publishReference',
        summary: 'Publish the draft definition of a reference',
        description: 'The draft definition becomes the published one; a reference without a draft is a 400.',
        tags: ['references'],
        params: IdParam('id', 'Reference ID'),
        response: { 200: ReferenceSchema, ...errorResponses(404) },
      },
    },
    (request) => references.publish(contextOf(request), request.params.id),
  );

  await app.register(referenceUploadRoutes, { references });
};
