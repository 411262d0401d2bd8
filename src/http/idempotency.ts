import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvalidFieldError, PayloadTooLargeError } from '../errors.ts';

/** An answer kept for replay. */
export interface StoredAnswer {
  status: number;
  contentType: string | null;
  etag: string | null;
  body: string;
}

export type Claim = { kind: 'claimed'; id: number } | { kind: 'replay'; answer: StoredAnswer };

/** Where claims live (the database, through IdempotencyService). */
export interface IdempotencyStore {
  claim(apiKeyId: number, key: string, fingerprint: string): Promise<Claim>;
  /** `secret`: the answer holds a secret shown once, so it is kept encrypted */
  complete(id: number, answer: StoredAnswer, secret: boolean): Promise<void>;
  release(id: number): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: IdempotencyState | null;
  }
}

interface IdempotencyState {
  key: string;
  /** method, path with query, then every byte of the body */
  hash: Hash;
  /** the claim this request holds while it runs; null once completed or released */
  claimId: number | null;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY = /^[\x20-\x7e]{1,255}$/;
const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * `Idempotency-Key` on every write of the API (extensions §2). The key is checked once the request is
 * authenticated; the body is read whole before it is parsed, so that the fingerprint covers every
 * byte (a multipart body too); the key is claimed in the database once the request is valid
 * and permitted, just before the handler; the answer completes the claim. A retry of the same request
 * gets the first answer replayed with `Idempotent-Replayed: true`.
 */
export function registerIdempotency(app: FastifyInstance, service: IdempotencyStore): void {
  app.decorateRequest('idempotency', null);

  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.operation === undefined || !WRITES.has(request.method)) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    if (typeof header !== 'string' || !KEY.test(header)) {
      throw new InvalidFieldError('header.idempotency-key', 'must be 1-255 printable ASCII characters');
    }
    const hash = createHash('sha256').update(`${request.method} ${request.url}\n`);
    request.idempotency = { key: header, hash, claimId: null };
  });

  app.addHook('preParsing', async (request, _reply, payload) => {
    const state = request.idempotency;
    if (state === null) return payload;
    const limit = request.routeOptions.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of payload) {
      size += (chunk as Buffer).length;
      if (size > limit) throw new PayloadTooLargeError(`The body is larger than ${limit} bytes.`);
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    state.hash.update(body);
    const again = Readable.from([body], { objectMode: false }) as Readable & {
      receivedEncodedLength?: number;
    };
    again.receivedEncodedLength = size;
    if (/^multipart\//i.test(request.headers['content-type'] ?? '')) replayRawBody(request, body);
    return again;
  });

  app.addHook('preHandler', async (request, reply) => {
    const state = request.idempotency;
    const actor = request.auth?.actor;
    if (state === null || actor === undefined) return;
    const claim = await service.claim(actor.keyId, state.key, state.hash.digest('base64url'));
    if (claim.kind === 'claimed') {
      state.claimId = claim.id;
      return;
    }
    const { status, contentType, etag, body } = claim.answer;
    reply.code(status).header('idempotent-replayed', 'true');
    if (contentType !== null) reply.type(contentType);
    if (etag !== null) reply.header('etag', etag);
    return reply.send(body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claimId = takeClaim(request);
    if (claimId === null) return payload;
    // A failure of ours is not an answer to keep: the retry runs again.
    if (reply.statusCode >= 500 || payload instanceof Readable) {
      await service.release(claimId);
      return payload;
    }
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    const contentType = reply.getHeader('content-type');
    const etag = reply.getHeader('etag');
    await service.complete(
      claimId,
      {
        status: reply.statusCode,
        contentType: typeof contentType === 'string' ? contentType : null,
        etag: typeof etag === 'string' ? etag : null,
        body,
      },
      request.routeOptions.config.secretAnswer === true,
    );
    return payload;
  });

  // A request that ended without an answer (a hook failed late, the client went away first) frees its key.
  app.addHook('onResponse', async (request) => {
    const claimId = takeClaim(request);
    if (claimId !== null) await service.release(claimId);
  });
}

/**
 * The multipart reader pipes `request.raw` itself rather than the stream this hook returns, and this
 * hook has read `request.raw` to its end: its pipe gives the same bytes again, from a stream of their
 * own. (`raw.readableEnded` stays true, which the reader takes for a complete request.)
 */
function replayRawBody(request: FastifyRequest, body: Buffer): void {
  const raw = request.raw;
  const again = Readable.from([body], { objectMode: false });
  raw.pipe = <T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T =>
    again.pipe(destination, options);
  raw.unpipe = (destination?: NodeJS.WritableStream) => {
    again.unpipe(destination);
    return raw;
  };
}

function takeClaim(request: FastifyRequest): number | null {
  const state = request.idempotency;
  if (state === null || state.claimId === null) return null;
  const id = state.claimId;
  state.claimId = null;
  return id;
}
