import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyContextConfig, FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { sendError } from './error-handler.ts';
import type { Metrics, RouteSeries } from './metrics-collector.ts';
import './fastify-types.ts';

/** What a request that matched no route is counted under: never its URL, whose values are endless. */
export const UNMATCHED = 'unmatched';

/**
 * GET /metrics (Prometheus text) and the counting of every answered request. With METRICS=false
 * there is neither: no route (a 404 like any unknown path) and no hook.
 */
export function registerMetrics(
  app: FastifyInstance,
  deps: { metrics: Metrics | null; config: Pick<Config, 'metricsToken'> },
): void {
  const metrics = deps.metrics;
  if (metrics === null) return;

  // A route's config object is made once, when the route is added, and reached from every request:
  // its series are found by it, without building a key from the request.
  const routes = new WeakMap<FastifyContextConfig, RouteSeries>();
  const seriesOf = (config: FastifyContextConfig & { url?: string }): RouteSeries => {
    let series = routes.get(config);
    if (series === undefined) {
      series = metrics.route(config.operation ?? config.url ?? UNMATCHED);
      routes.set(config, series);
    }
    return series;
  };

  // Callback style: a promise per request on the hot read path is measurable. Fastify has timed the
  // request from routing to the finished response (reply.elapsedTime, in milliseconds).
  app.addHook('onResponse', (request, reply, done) => {
    seriesOf(request.routeOptions.config).answered(
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });

  registerRoute(app, metrics, deps.config.metricsToken);
}

/** Not an API operation: no key, no rate limit, not in the OpenAPI document. */
function registerRoute(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  const expected = token === null ? null : digest(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (expected !== null && !bearerMatches(request.headers.authorization, expected)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      return sendError(reply, 401, 'GET /metrics needs the bearer token of METRICS_TOKEN.');
    }
    const text = await metrics.text();
    return reply.type(metrics.contentType).send(text);
  });
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Compared as digests of equal length, in constant time: the answer tells nothing of the token. */
function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
}
