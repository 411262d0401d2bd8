import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { codingFor, encodedTag, SITE_TEXT, type Coding } from './site.encodings.ts';

/** What the site answers an address with, before the caching headers. */
export interface SiteAnswer {
  status: 200 | 301 | 302 | 303 | 400 | 403 | 404 | 413 | 415 | 429 | 503;
  type: string;
  body: string | Buffer;
  /** a redirect's target, an address of the same site */
  location?: string;
  /** content-hashed assets: cached for a year, never revalidated */
  immutable?: boolean;
  /** headers of this answer alone (a refusal's Retry-After), set after the site's own */
  headers?: Readonly<Record<string, string>>;
}

export const HTML = 'text/html; charset=utf-8';

/**
 * The site's policy: everything from the site itself. Contents may show images and media of any
 * HTTPS address and embed videos (the engine's embeds); scripts, styles, fonts and requests are the
 * site's own only.
 */
export const SITE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "media-src 'self' https:",
  'frame-src https:',
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

export const strongTag = (body: string | Buffer): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** Whether the request's If-None-Match names `etag` (or is `*`). */
export function matchesTag(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (typeof header !== 'string') return false;
  return header
    .split(',')
    .map((part) => part.trim())
    .some((tag) => tag === etag || tag === '*' || tag === `W/${etag}`);
}

/**
 * Sends an answer with its tag and caching rule; 304 when the client holds it already. An answer that
 * goes encoded has its coding in its tag (site.encodings.ts): `encoded` is a kept answer's bytes in
 * that coding, sent as they are (null: its own bytes, the coding known to be none); otherwise the
 * per-request compression encodes it.
 */
export function sendSiteAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: SiteAnswer,
  cacheControl: string,
  etag: string = strongTag(answer.body),
  encoded?: { coding: Coding; body: Buffer } | null,
): FastifyReply {
  reply.header('content-security-policy', SITE_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'strict-origin-when-cross-origin');
  reply.header('cache-control', answer.immutable ? 'public, max-age=31536000, immutable' : cacheControl);
  if (answer.location !== undefined) {
    reply.header('location', answer.location);
  }
  const coding = encoded === undefined ? codingFor(request, answer) : (encoded?.coding ?? null);
  const tag = coding === null ? etag : encodedTag(etag, coding);
  reply.header('etag', tag);
  // Its bytes depend on the request's Accept-Encoding, 304s too.
  if (SITE_TEXT.test(answer.type)) reply.header('vary', 'accept-encoding');
  if (answer.headers !== undefined) reply.headers(answer.headers);
  if (answer.status === 200 && matchesTag(request, tag)) {
    return reply.code(304).send();
  }
  if (encoded !== undefined && encoded !== null) {
    reply.header('content-encoding', encoded.coding);
    return reply.code(answer.status).type(answer.type).send(encoded.body);
  }
  return reply.code(answer.status).type(answer.type).send(answer.body);
}

export const redirect = (status: 301 | 302, location: string): SiteAnswer => ({
  status,
  type: 'text/plain; charset=utf-8',
  body: `Redirecting to ${location}`,
  location,
});
