import type { RouteOptions } from 'fastify';
import { errorResponse } from './schemas.ts';

const integer = (description: string) => ({ type: 'integer', description });
const text = (description: string) => ({ type: 'string', description });

const REQUEST_ID = { 'X-Request-Id': text('Identifies the request in the logs') };
const RATE_LIMIT = {
  'X-RateLimit-Limit': integer('Requests permitted in the current window'),
  'X-RateLimit-Remaining': integer('Requests consumed in the current window, this one included'),
  'X-RateLimit-Reset': integer('Unix time (seconds) at which the window resets'),
  'RateLimit-Policy': text('The limit and window of this operation (IETF form)'),
  RateLimit: text('Requests remaining and seconds to reset (IETF form)'),
};
const RETRY_AFTER = { 'Retry-After': integer('Seconds to wait before trying again') };

/**
 * Adds the headers every API operation sends to the responses it documents, in one place rather
 * than in every route, so the generated OpenAPI document cannot forget them.
 */
export function documentResponseHeaders(route: RouteOptions): void {
  const response = route.schema?.response as Record<string, Record<string, unknown>> | undefined;
  if (route.config?.operation === undefined || response === undefined) return;
  // Any body over the limit is refused with 413 before the route runs, whether the operation reads
  // its body or not.
  const methods = [route.method].flat();
  if (methods.some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH') && response['413'] === undefined) {
    response['413'] = errorResponse(413);
  }
  // Any write may carry an Idempotency-Key: reused for another request → 422, its first request
  // still running → 409 (extensions §2).
  if (methods.some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH' || m === 'DELETE')) {
    response['409'] ??= errorResponse(409);
    response['422'] ??= errorResponse(422);
    // Fastify reads the body of these methods (never of a GET), and refuses one of a content type no
    // parser takes, even where the operation expects none (a DELETE sent a body).
    response['415'] ??= errorResponse(415);
  }
  for (const [status, schema] of Object.entries(response)) {
    const success = status.startsWith('2');
    // A 304 is counted like the answer it stands for (extensions §2), and says so in the same headers.
    const counted = success || status === '304' || status === '429';
    response[status] = {
      ...schema,
      ...(success && schema.description === undefined ? { description: 'Success' } : {}),
      headers: {
        ...REQUEST_ID,
        ...(counted ? RATE_LIMIT : {}),
        ...(status === '429' || status === '503' ? RETRY_AFTER : {}),
      },
    };
  }
}
