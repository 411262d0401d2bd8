import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses, IdParam } from '../../http/schemas.ts';
import { DocumentationSchema } from './documentation.schemas.ts';
import type { DocumentationService } from './documentation.service.ts';

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
        tags: ['documentation'],
        params: IdParam('versionId', 'Version ID'),
        response: { 200: Type.Array(DocumentationSchema), ...errorResponses(404) },
      },
    },
    (request) => documentation.listForVersion(contextOf(request), request.params.versionId),
  );
};
