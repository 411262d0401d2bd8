import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Negotiator } from '@fastify/accept-negotiator';
import type { FastifyRequest } from 'fastify';
import { COMPRESSION_THRESHOLD } from '../http/compression.ts';

/** The content codings a kept answer is stored in besides its own bytes, in the site's preference. */
export type Coding = 'br' | 'gzip';

/** A kept answer's encoded forms, each made the first time a reader's browser asks for it. */
export type Encoded = Partial<Record<Coding, Buffer>>;

// No cache of headers: a client choosing its Accept-Encoding freely would grow it without bound.
const negotiator = new Negotiator({ supportedValues: ['br', 'gzip'] });

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Brotli at quality 5: made once per change of the answer (not per request, as the compression of
 * the API's answers is), so it can afford more than the per-request quality 4, and stays a millisecond
 * or two for a page of tens of kilobytes, which the first reader after a change waits for.
 */
const BROTLI_QUALITY = 5;

/**
 * The types the site sends as text (HTML, Markdown, plain text, XML feeds and sitemaps, its script and
 * stylesheet, JSON): those the per-request compression of src/http/compression.ts compresses too, by
 * its own list or as compressible types.
 */
export const SITE_TEXT =
  /^(?:text\/[\w.+-]+|application\/(?:[\w.-]+\+)?(?:json|xml)|application\/javascript)\s*(?:;|$)/i;

/**
 * The coding an answer goes to this request in, or null for its own bytes: the same answers and the
 * same negotiation as the per-request compression, which encodes what the site does not keep.
 */
export function codingFor(request: FastifyRequest, answer: EncodableAnswer): Coding | null {
  if (answer.status !== 200 || Buffer.byteLength(answer.body) < COMPRESSION_THRESHOLD) return null;
  if (!SITE_TEXT.test(answer.type)) return null;
  const header = request.headers['accept-encoding'];
  if (typeof header !== 'string' || request.headers['x-no-compression'] !== undefined) return null;
  const coding = negotiator.negotiate(header);
  return coding === 'br' || coding === 'gzip' ? coding : null;
}

/** What of an answer (site.answer.ts) decides whether and how it is encoded. */
interface EncodableAnswer {
  status: number;
  type: string;
  body: string | Buffer;
}

/**
 * A kept answer as this request accepts it: null for its own bytes, else its coding, bytes and
 * whether they were made now (added to `encoded`, which the caller then weighs again).
 */
export async function encodedFor(
  request: FastifyRequest,
  answer: EncodableAnswer,
  encoded: Encoded,
): Promise<{ coding: Coding; body: Buffer; made: boolean } | null> {
  const coding = codingFor(request, answer);
  if (coding === null) return null;
  const kept = encoded[coding];
  if (kept !== undefined) return { coding, body: kept, made: false };
  const body = await encode(typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body, coding);
  encoded[coding] = body;
  return { coding, body, made: true };
}

/** The answer's bytes in `coding`, off the event loop (zlib's thread pool). */
function encode(body: Buffer, coding: Coding): Promise<Buffer> {
  return coding === 'br'
    ? brotli(body, {
        params: {
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      })
    : gzip(body);
}

/**
 * The strong tag of an encoded form: a representation of its own (RFC 9110 §8.8.1), so a client
 * holding the brotli bytes revalidates them, not the identity ones.
 */
export const encodedTag = (etag: string, coding: Coding): string =>
  `${etag.slice(0, -1)}-${coding === 'br' ? 'br' : 'gz'}"`;
