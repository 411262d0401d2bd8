import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { RouteOptions } from 'fastify';
import { RESPONSE_HEADERS, REQUEST_HEADERS, type ResponseHeaderName } from './header-schemas.ts';
import { takesIdempotencyKey } from './idempotency.ts';
import { errorResponse } from './schemas.ts';

const pick = (...names: ResponseHeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, RESPONSE_HEADERS[name]]));

const REQUEST_ID = pick('X-Request-Id');
const RATE_LIMIT = pick(
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
);
const RETRY_AFTER = pick('Retry-After');
const ETAG = pick('ETag');
const REPLAYED = pick('Idempotent-Replayed');

/**
 * Declares the headers every API operation reads or sends in its route schema, in one place rather
 * than in every route, so the generated OpenAPI document cannot forget them: Idempotency-Key on the
 * writes the idempotency hooks serve, and the response headers of every status.
 */
export function documentResponseHeaders(route: RouteOptions): void {
  const response = route.schema?.response as Record<string, Record<string, unknown>> | undefined;
  if (route.config?.operation === undefined || response === undefined) return;
  const idempotent = takesIdempotencyKey(route);
  if (idempotent && route.schema !== undefined) {
    route.schema.headers = withHeader(route.schema.headers, 'Idempotency-Key');
  }
  // Any body over the limit is refused with 413 before the route runs, whether the operation reads
  // its body or not.
  const methods = [route.method].flat();
  if (methods.some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH') && response['413'] === undefined) {
    response['413'] = errorResponse(413);
  }
  // Any write may carry an Idempotency-Key: reused for another request → 422, its first request
  // still running → 409 (extensions §2).
  if (idempotent) {
    response['409'] ??= errorResponse(409);
    response['422'] ??= errorResponse(422);
    // Fastify reads the body of these methods (never of a GET), and refuses one of a content type no
    // parser takes, even where the operation expects none (a DELETE sent a body).
    response['415'] ??= errorResponse(415);
  }
  const conditionalRead = response['304'] !== undefined;
  for (const [status, schema] of Object.entries(response)) {
    const success = status.startsWith('2');
    // A 304 is counted like the answer it stands for (extensions §2), and says so in the same headers.
    const counted = success || status === '304' || status === '429';
    const declared = (schema.headers ?? {}) as Record<string, TSchema>;
    response[status] = {
      ...schema,
      ...(success && schema.description === undefined ? { description: 'Success' } : {}),
      headers: {
        ...REQUEST_ID,
        ...(counted ? RATE_LIMIT : {}),
        ...(status === '429' || status === '503' ? RETRY_AFTER : {}),
        // A 412 names the current tag; a 304 repeats the one the client holds.
        ...(status === '412' || (status === '304' && conditionalRead) ? ETAG : {}),
        // Any answer below 500 to a write under a key may be the kept one, replayed.
        ...(idempotent && Number(status) < 500 ? REPLAYED : {}),
        ...declared,
      },
    };
  }
}

/** The route's header schema with one more optional request header. */
function withHeader(headers: unknown, name: keyof typeof REQUEST_HEADERS): TObject {
  const properties = (headers as TObject | undefined)?.properties ?? {};
  return Type.Object({ ...properties, [name]: Type.Optional(REQUEST_HEADERS[name].schema) });
}
