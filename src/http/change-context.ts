import type { FastifyRequest } from 'fastify';
import type { UseCaseContext } from '../auth/actor.ts';
import { ForbiddenError } from '../errors.ts';
import { runOf } from './idempotency.ts';

/** The use-case context of a request whose route declared an operation (the pipeline resolved its key). */
export function contextOf(request: FastifyRequest): UseCaseContext {
  const auth = request.auth;
  if (!auth) throw new ForbiddenError('No API Key was provided.');
  const ifMatch = declaresIfMatch(request) ? request.headers['if-match'] : undefined;
  const ctx: UseCaseContext = {
    scope: auth.scope,
    actor: auth.actor,
    ipAddress: request.ip,
    ...(typeof ifMatch === 'string' ? { ifMatch } : {}),
  };
  // A request under an Idempotency-Key writes in its key's transaction, which its answer commits;
  // what it reads after its first write is read there too.
  const run = runOf(request);
  if (run === undefined) return ctx;
  return Object.defineProperties(ctx, {
    transaction: { get: () => run.transaction, enumerable: true },
    join: { value: () => run.open(), enumerable: true },
  });
}

/**
 * If-Match is honoured where the route's schema declares it, and read nowhere else: a route cannot
 * act on the header without the document saying so (test/openapi.headers.test.ts). Reads never do.
 */
function declaresIfMatch(request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  const headers = request.routeOptions.schema?.headers as
    { properties?: Record<string, unknown> } | undefined;
  return headers?.properties?.['If-Match'] !== undefined;
}
