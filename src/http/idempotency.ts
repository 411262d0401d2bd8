import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onResponseHookHandler,
  onSendHookHandler,
  preHandlerHookHandler,
  preParsingHookHandler,
  RequestPayload,
  RouteOptions,
} from 'fastify';
import { InvalidFieldError, PayloadTooLargeError } from '../errors.ts';
import type { IdempotencyStore, IdempotentRun } from '../shared/idempotency-store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: IdempotencyState | null;
  }
}

interface IdempotencyState {
  key: string;
  /** method, path with query, then every byte of the body */
  hash: Hash;
  /** the run this request holds; null before it begins and once it has ended */
  run: IdempotentRun | null;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY = /^[\x20-\x7e]{1,255}$/;
const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * `Idempotency-Key` on every write of the API (extensions §2). The key is checked once the request is
 * authenticated; the body is read whole before it is parsed, so that the fingerprint covers every
 * byte (a multipart body too); the key is claimed once the request is valid and permitted, just
 * before the handler, whose writes then run in the claim's transaction; the answer is kept in it as
 * it is sent, and commits with the change. A retry of the same request gets the first answer replayed with
 * `Idempotent-Replayed: true`.
 *
 * The hooks are the routes' own, added to the writes of the API only, after the pipeline's (the
 * request's key is resolved by then): reads never run them, not even to find nothing to do. Each one
 * that finds nothing to do answers at once, without a promise.
 */
export function registerIdempotency(app: FastifyInstance, service: IdempotencyStore): void {
  app.decorateRequest('idempotency', null);

  const onRequest: onRequestHookHandler = (request, _reply, done) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined || !WRITES.has(request.method)) {
      done();
      return;
    }
    if (typeof header !== 'string' || !KEY.test(header)) {
      done(new InvalidFieldError('header.idempotency-key', 'must be 1-255 printable ASCII characters'));
      return;
    }
    const hash = createHash('sha256').update(`${request.method} ${request.url}\n`);
    request.idempotency = { key: header, hash, run: null };
    done();
  };

  const preParsing: preParsingHookHandler = (request, _reply, payload, done) => {
    const state = request.idempotency;
    if (state === null) {
      done(null, payload);
      return;
    }
    readWhole(request, state, payload).then(
      (again) => done(null, again),
      (error: unknown) => done(error as FastifyError),
    );
  };

  const preHandler: preHandlerHookHandler = (request, reply, done) => {
    const state = request.idempotency;
    const actor = request.auth?.actor;
    if (state === null || actor === undefined) {
      done();
      return;
    }
    claimOrReplay(service, state, actor.keyId, reply).then(
      (replayed) => {
        // A replay has been sent: the route does not run.
        if (!replayed) done();
      },
      (error: unknown) => done(error as FastifyError),
    );
  };

  const onSend: onSendHookHandler = (request, reply, payload, done) => {
    const run = takeRun(request);
    if (run === null) {
      done(null, payload);
      return;
    }
    keepAnswer(run, request, reply, payload).then(
      () => done(null, payload),
      (error: unknown) => done(error as FastifyError),
    );
  };

  // A request that ended without an answer (a hook failed late) undoes its change and frees its key.
  const onResponse: onResponseHookHandler = (request, _reply, done) => {
    const run = takeRun(request);
    if (run === null) {
      done();
      return;
    }
    run.abandon().then(
      () => done(),
      (error: unknown) => done(error as FastifyError),
    );
  };

  app.addHook('onRoute', (route) => {
    if (!takesIdempotencyKey(route)) return;
    route.onRequest = [...hooksOf(route.onRequest), onRequest];
    route.preParsing = [...hooksOf(route.preParsing), preParsing];
    route.preHandler = [...hooksOf(route.preHandler), preHandler];
    // First of the route's own: the answer is kept as the route made it, before compression
    // (whose hook is the route's too) encodes it; a replay is sent through that hook again.
    route.onSend = [onSend, ...hooksOf(route.onSend)];
    route.onResponse = [...hooksOf(route.onResponse), onResponse];
  });
}

/** Whether a route is a write of the API, whose requests may carry an Idempotency-Key. */
export function takesIdempotencyKey(route: Pick<RouteOptions, 'config' | 'method'>): boolean {
  if (route.config?.operation === undefined) return false;
  return [route.method].flat().some((method) => WRITES.has(method));
}

/** A route's own hooks of one kind, as a list. */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * The body, read whole into the fingerprint chunk by chunk as it arrives, and given again to the
 * parser as a stream of the same chunks: never joined or hashed in one piece, which for an import of
 * 64 MiB held the event loop a few hundred milliseconds.
 */
async function readWhole(
  request: FastifyRequest,
  state: IdempotencyState,
  payload: RequestPayload,
): Promise<RequestPayload> {
  const limit = request.routeOptions.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of payload) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > limit) throw new PayloadTooLargeError(`The body is larger than ${limit} bytes.`);
    state.hash.update(bytes);
    chunks.push(bytes);
  }
  const again = Readable.from(chunks, { objectMode: false }) as Readable & {
    receivedEncodedLength?: number;
  };
  again.receivedEncodedLength = size;
  if (/^multipart\//i.test(request.headers['content-type'] ?? '')) replayRawBody(request, chunks);
  return again;
}

/** Claims the key for this request, or sends the answer kept for it: true when it was replayed. */
async function claimOrReplay(
  service: IdempotencyStore,
  state: IdempotencyState,
  apiKeyId: number,
  reply: FastifyReply,
): Promise<boolean> {
  const claim = await service.begin(apiKeyId, state.key, state.hash.digest('base64url'));
  if (claim.kind === 'run') {
    state.run = claim.run;
    return false;
  }
  const { status, contentType, etag, body } = claim.answer;
  reply.code(status).header('idempotent-replayed', 'true');
  if (contentType !== null) reply.type(contentType);
  if (etag !== null) reply.header('etag', etag);
  reply.send(body);
  return true;
}

/**
 * Ends the run with the answer about to be sent: a failure of ours (5xx) undoes the change, and the
 * retry runs again; when the commit fails, the error is sent instead of the answer.
 */
async function keepAnswer(
  run: IdempotentRun,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<void> {
  if (reply.statusCode >= 500) {
    await run.abandon();
    return;
  }
  if (payload instanceof Readable) {
    await run.finish(null, false);
    return;
  }
  const body =
    typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
  const contentType = reply.getHeader('content-type');
  const etag = reply.getHeader('etag');
  await run.finish(
    {
      status: reply.statusCode,
      contentType: typeof contentType === 'string' ? contentType : null,
      etag: typeof etag === 'string' ? etag : null,
      body,
    },
    request.routeOptions.config.secretAnswer === true,
  );
}

/**
 * The multipart reader pipes `request.raw` itself rather than the stream this hook returns, and this
 * hook has read `request.raw` to its end: its pipe gives the same bytes again, from a stream of their
 * own. (`raw.readableEnded` stays true, which the reader takes for a complete request.)
 */
function replayRawBody(request: FastifyRequest, chunks: readonly Buffer[]): void {
  const raw = request.raw;
  const again = Readable.from(chunks, { objectMode: false });
  raw.pipe = <T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T =>
    again.pipe(destination, options);
  raw.unpipe = (destination?: NodeJS.WritableStream) => {
    again.unpipe(destination);
    return raw;
  };
}

function takeRun(request: FastifyRequest): IdempotentRun | null {
  const state = request.idempotency;
  if (state === null || state.run === null) return null;
  const run = state.run;
  state.run = null;
  return run;
}

/** The request's idempotent run, whose transaction its use cases join. */
export function runOf(request: FastifyRequest): IdempotentRun | undefined {
  return request.idempotency?.run ?? undefined;
}
