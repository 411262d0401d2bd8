import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses } from '../../http/schemas.ts';
import { UserSchema } from './users.schemas.ts';
import type { UsersService } from './users.service.ts';

export const usersRoutes: FastifyPluginAsyncTypebox<{ users: UsersService }> = async (app, { users }) => {
  app.get(
    '/users',
    {
      config: { operation: 'listUsers', permission: 'project.read' },
      schema: {
        operationId: 'listUsers',
        summary: 'All users of the project and their roles',
        description:
          'Every user of the project with their role; lastActiveAt is set when a key that belongs to the user is used (at most once a minute).',
        tags: ['users'],
        response: { 200: Type.Array(UserSchema), ...errorResponses() },
      },
    },
    (request) => users.list(contextOf(request)),
  );
};
