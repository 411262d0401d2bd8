import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../errors.ts';
import type { Actor, ChangeContext } from '../modules/keys/actor.ts';

/** The authenticated actor of a route that declared an operation (the pipeline guarantees it). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new ForbiddenError('No API Key was provided.');
  return request.actor;
}

export function changeContext(request: FastifyRequest): ChangeContext {
  return { actor: actorOf(request), ipAddress: request.ip };
}
