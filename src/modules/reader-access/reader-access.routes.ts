import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses } from '../../http/schemas.ts';
import { siteRootOf } from '../../shared/site-host.ts';
import {
  ReaderAccessGrantBody,
  ReaderAccessRevokeBody,
  ReaderAccessSchema,
} from './reader-access.schemas.ts';
import type { ReaderAccessService } from './reader-access.service.ts';

export const readerAccessRoutes: FastifyPluginAsyncTypebox<{ readerAccess: ReaderAccessService }> = async (
  app,
  { readerAccess },
) => {
  app.get(
    '/reader-access',
    {
      config: { operation: 'listReaderAccess', permission: 'access.read' },
      schema: {
        operationId: 'listReaderAccess',
        summary: 'Every reader access grant of the project, revoked ones included, newest first',
        description: 'Active and revoked grants, newest first. E-mails are in lower case.',
        tags: ['reader-access'],
        response: { 200: Type.Array(ReaderAccessSchema), ...errorResponses() },
      },
    },
    (request) => readerAccess.list(contextOf(request)),
  );

  app.post(
    '/reader-access',
    {
      config: { operation: 'grantReaderAccess', permission: 'access.write', body: 'json' },
      schema: {
        operationId: 'grantReaderAccess',
        summary: 'Grant reader access to an e-mail (projects protected by e-mail invite only)',
        description:
          'Granting an e-mail that already has a grant re-activates it and sets the new expiresAt. ' +
          'Each grant mails the address an invitation with a single-use sign-in link to the site, ' +
          'valid until the grant expires and at most 30 days.',
        tags: ['reader-access'],
        body: ReaderAccessGrantBody,
        response: { 200: ReaderAccessSchema, ...errorResponses(413, 415) },
      },
    },
    (request) => {
      const ctx = contextOf(request);
      // The invitation's link leads to the project's site: its host, or /sites/{id} where the API is.
      const root = siteRootOf(ctx.scope.project, `${request.protocol}://${request.host}`);
      return readerAccess.grant(ctx, request.body, root);
    },
  );

  app.patch(
    '/reader-access',
    {
      config: { operation: 'revokeReaderAccess', permission: 'access.write', body: 'json' },
      schema: {
        operationId: 'revokeReaderAccess',
        summary: 'Revoke the reader access of an e-mail',
        description: 'Revoking an already revoked access answers the record unchanged.',
        tags: ['reader-access'],
        body: ReaderAccessRevokeBody,
        response: { 200: ReaderAccessSchema, ...errorResponses(404, 413, 415) },
      },
    },
    (request) => readerAccess.revoke(contextOf(request), request.body),
  );
};
