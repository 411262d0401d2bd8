import { Type, type TSchema } from '@sinclair/typebox';

/*
 * The HTTP headers of the API beyond the key, as schemas: routes declare the ones they honour, and
 * the OpenAPI document shows each once, as a component (decision 0035). A header a route reads or
 * sends that its schema does not declare fails test/openapi.headers.test.ts.
 */

const text = (description: string) => Type.String({ description });

/** Request headers, by the name the document gives them; the key is that of components.parameters. */
export const REQUEST_HEADERS = {
  'Idempotency-Key': {
    component: 'IdempotencyKey',
    schema: Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]+$',
      description:
        'Makes a retried write happen once: within 24 hours the same key with the same request gets the ' +
        'first answer replayed (Idempotent-Replayed: true); with another request, 422; while the first ' +
        'still runs, 409. 1-255 printable ASCII characters.',
    }),
  },
  'If-Match': {
    component: 'IfMatch',
    schema: text('Writes only if the resource still has this ETag; otherwise 412 with the current ETag'),
  },
  'If-None-Match': {
    component: 'IfNoneMatch',
    schema: text('An ETag the client holds: when it is still current, 304 with no body'),
  },
} as const;

export type RequestHeaderName = keyof typeof REQUEST_HEADERS;

/** A route's `schema.headers` for the named request headers, each optional. */
export function requestHeaders(...names: RequestHeaderName[]) {
  return Type.Object(
    Object.fromEntries(names.map((name) => [name, Type.Optional(REQUEST_HEADERS[name].schema)])),
  );
}

/** The conditional read headers of GET /page/{id}, a reference's definition and GET /all. */
export const ConditionalReadHeaders = requestHeaders('If-None-Match');
/** The conditional write header of page, version and section updates and deletes. */
export const ConditionalWriteHeaders = requestHeaders('If-Match');

const integer = (description: string) => Type.Integer({ description });

/** Response headers, by name; each is components.headers[name] in the document. */
export const RESPONSE_HEADERS = {
  'X-Request-Id': text('Identifies the request in the logs'),
  'X-RateLimit-Limit': integer('Requests permitted in the current window'),
  'X-RateLimit-Remaining': integer('Requests consumed in the current window, this one included'),
  'X-RateLimit-Reset': integer('Unix time (seconds) at which the window resets'),
  'RateLimit-Policy': text('The limit and window of this operation (IETF form)'),
  RateLimit: text('Requests remaining and seconds to reset (IETF form)'),
  'Retry-After': integer('Seconds to wait before trying again'),
  ETag: text('A strong entity tag of the resource as answered, for If-None-Match and If-Match'),
  'Idempotent-Replayed': Type.Literal('true', {
    description:
      'Present when the answer is the one kept for an earlier request with the same Idempotency-Key',
  }),
} satisfies Record<string, TSchema>;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** A response schema that also declares the ETag header its route sends with it. */
export function withETag<T extends object>(schema: T): T {
  const declared = (schema as { headers?: Record<string, TSchema> }).headers;
  return { ...schema, headers: { ...declared, ETag: RESPONSE_HEADERS.ETag } };
}
