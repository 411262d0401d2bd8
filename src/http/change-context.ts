import type { FastifyRequest } from 'fastify';
import type { UseCaseContext } from '../auth/actor.ts';
import { ForbiddenError } from '../errors.ts';

/** The use-case context of a request whose route declared an operation (the pipeline resolved its key). */
export function contextOf(request: FastifyRequest): UseCaseContext {
  const auth = request.auth;
  if (!auth) throw new ForbiddenError('No API Key was provided.');
  const ifMatch = request.headers['if-match'];
  return {
    scope: auth.scope,
    actor: auth.actor,
    ipAddress: request.ip,
    ...(typeof ifMatch === 'string' ? { ifMatch } : {}),
  };
}
