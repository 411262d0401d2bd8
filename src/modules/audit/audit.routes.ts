import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses } from '../../http/schemas.ts';
import { AuditListSchema, AuditQuery } from './audit.schemas.ts';
import type { AuditService } from './audit.service.ts';

export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: AuditService }> = async (app, { audit }) => {
  app.get(
    '/audit',
    {
      config: { operation: 'readAudit', permission: 'audit.read' },
      schema: {
        operationId: 'readAudit',
        summary: 'The audit log, newest first (enterprise plans only)',
        description:
          'scopes: content (default), users, hosting, security, plan, other — as scopes[]=a&scopes[]=b, ' +
          'scopes=a&scopes=b or scopes=a,b. Pass the returned cursor back for the next page.',
        tags: ['audit'],
        querystring: AuditQuery,
        response: { 200: AuditListSchema, ...errorResponses() },
      },
    },
    (request) => audit.list(contextOf(request), request.query),
  );
};
