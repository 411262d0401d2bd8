import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.ts';
import { ForbiddenError } from '../errors.ts';

export const CROSS_ORIGIN_MESSAGE = 'Cross-origin requests are not allowed. Call this API from a back-end.';

/** Preflights: CORS headers only for cross-origin operations; every other preflight is refused. */
export function registerPreflight(
  app: FastifyInstance,
  config: Config,
  crossOriginPaths: ReadonlySet<string>,
): void {
  app.options('/api/v1/*', { schema: { hide: true } }, (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const origin = request.headers.origin;
    if (!crossOriginPaths.has(path)) throw new ForbiddenError(CROSS_ORIGIN_MESSAGE);
    if (origin !== undefined && !originAllowed(origin, config)) {
      throw new ForbiddenError(`Origin '${origin}' is not allowed.`);
    }
    applyCorsHeaders(reply, origin, config);
    reply
      .header('access-control-allow-methods', 'GET, OPTIONS')
      .header('access-control-allow-headers', 'X-Api-Key, Content-Type')
      .header('access-control-max-age', '600')
      .code(204)
      .send();
  });
}

export const originAllowed = (origin: string, config: Config): boolean =>
  config.corsOrigins === null || config.corsOrigins.includes(origin);

export function applyCorsHeaders(reply: FastifyReply, origin: string | undefined, config: Config): void {
  if (config.corsOrigins === null) reply.header('access-control-allow-origin', '*');
  else if (origin !== undefined && config.corsOrigins.includes(origin)) {
    reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
  }
  reply.header(
    'access-control-expose-headers',
    'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit, X-Request-Id, Retry-After',
  );
}
