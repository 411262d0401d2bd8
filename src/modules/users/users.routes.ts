import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/change-context.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { UsersService } from './users.service.ts';

export const UserSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    role: Type.Union([
      Type.Literal('ADMIN'),
      Type.Literal('PUBLISHER'),
      Type.Literal('WRITER'),
      Type.Literal('REVIEWER'),
    ]),
    lastActiveAt: Type.Union([Type.String(), Type.Null()], {
      description: 'Date the user last acted; null if never',
    }),
  },
  { title: 'User' },
);

export const usersRoutes: FastifyPluginAsyncTypebox<{ users: UsersService }> = async (app, { users }) => {
  app.get(
    '/users',
    {
      config: { operation: 'listUsers', permission: 'project.read' },
      schema: {
        operationId: 'listUsers',
        summary: 'All users of the project and their roles',
        tags: ['users'],
        response: { 200: Type.Array(UserSchema), ...errorResponses() },
      },
    },
    (request) => users.list(actorOf(request).project.id),
  );
};
