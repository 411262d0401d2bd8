import { Type, type TInteger, type TSchema } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      message: Type.String(),
      httpCode: Type.Integer(),
      code: Type.Integer(),
      details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    }),
  },
  { title: 'Error' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request',
  403: 'Access denied',
  404: 'Not found',
  409: 'Conflict (for a write with an Idempotency-Key: its first request is still running)',
  412: 'Precondition failed: the If-Match tag is not current (the current one is in ETag)',
  413: 'Payload too large',
  414: 'A path parameter is longer than 100 characters',
  415: 'Unsupported content-type',
  422: 'The Idempotency-Key was used with another request',
  429: 'Too many requests',
  503: 'Unavailable for now (the database is out of reach or slow, or heavy work could not finish); try again after Retry-After seconds',
};

/**
 * Response schemas for the error statuses a route can return; 400, 403, 429 and 503 apply to every
 * operation, 414 to every operation with a path parameter (added where headers are documented).
 */
export const errorResponse = (status: number): TSchema => ({
  ...ErrorBody,
  description: ERROR_DESCRIPTIONS[status] ?? 'Error',
});

export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const all = [...new Set([400, 403, 429, 503, ...statuses])].sort();
  return Object.fromEntries(all.map((s) => [s, errorResponse(s)]));
}

export const IdParam = <K extends string>(name: K, description: string) =>
  Type.Object({ [name]: Type.Integer({ minimum: 1, maximum: 2147483647, description }) } as Record<
    K,
    TInteger
  >);
