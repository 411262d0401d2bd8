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
  414: 'The URL is longer than 8 KiB, or a path parameter longer than 100 characters',
  415: 'Unsupported content-type',
  422: 'The Idempotency-Key was used with another request',
  429: 'Too many requests',
  431: 'The request line and headers are larger than 16 KiB in all',
  503: 'Unavailable for now (the database is out of reach or slow, or heavy work could not finish); try again after Retry-After seconds',
};

/**
 * Response schemas for the error statuses a route can return; 400, 403, 414, 429, 431 and 503 apply
 * to every operation (414 and 431 are answered before any route runs, to a URL or headers too long).
 */
export const errorResponse = (status: number): TSchema => ({
  ...ErrorBody,
  description: ERROR_DESCRIPTIONS[status] ?? 'Error',
});

export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const all = [...new Set([400, 403, 414, 429, 431, 503, ...statuses])].sort();
  return Object.fromEntries(all.map((s) => [s, errorResponse(s)]));
}

export const IdParam = <K extends string>(name: K, description: string) =>
  Type.Object({ [name]: Type.Integer({ minimum: 1, maximum: 2147483647, description }) } as Record<
    K,
    TInteger
  >);

const documentedForms = new WeakMap<object, object>();

/**
 * Gives a request schema a different form in the OpenAPI document than the one that validates. For
 * the few inputs whose validation is looser than their contract on purpose: GET /page checks that
 * page_slug is present (and version_id in range) in the service, so that one 400 names every missing
 * parameter, and a file upload's body is read by its handler, never by the validator. The document
 * then says what a client must send; the validator's 400s stay as they are.
 */
export function documentedAs<T extends object>(schema: T, documented: object): T {
  documentedForms.set(schema, documented);
  return schema;
}

export function documentedFormOf(schema: unknown): object | undefined {
  return typeof schema === 'object' && schema !== null ? documentedForms.get(schema) : undefined;
}
