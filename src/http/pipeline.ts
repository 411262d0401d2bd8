import type {
  FastifyContextConfig,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
  preValidationHookHandler,
} from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { ForbiddenError, InvalidFieldError, TooManyRequestsError } from '../errors.ts';
import type { KeyAuth, KeysService } from '../auth/keys.service.ts';
import type { CounterStore, WindowCount } from '../ratelimit/counter-store.ts';
import type { Metrics } from './metrics-collector.ts';
import { registerBodyParsers } from './body-parsers.ts';
import { CROSS_ORIGIN_MESSAGE, applyCorsHeaders, originAllowed } from './cors.ts';
import { AUTH_FAILURES, OPERATIONS, scaledLimit, type OperationId } from './operations.ts';
import { stringPath } from './string-paths.ts';
import './fastify-types.ts';

export interface PipelineDeps {
  config: Config;
  clock: Clock;
  counters: CounterStore;
  keys: KeysService;
  /** refusals are counted there; null with METRICS=false */
  metrics: Metrics | null;
}

/**
 * The path of every API request, before the body is read: origin policy → key → rate limit →
 * permission. Routes declare their operation and permission in `config`; handlers never check them.
 */
export function registerPipeline(app: FastifyInstance, deps: PipelineDeps): void {
  app.decorateRequest('auth', null);
  const limits = operationLimits(deps.config);

  // The routes of operations get these hooks as their own, first of their own, with their
  // configuration at hand (`request.routeOptions` makes a new object at every call): other routes
  // (health, documents) never run them.
  app.addHook('onRoute', (route) => {
    const config = route.config;
    const operation = config?.operation;
    if (config === undefined || operation === undefined) return;
    const gate: Gate = { config, operation, limit: limits[operation] };
    // GET and HEAD read no body: their query is checked for NUL as soon as they are admitted.
    const bodiless = [route.method].flat().every((method) => method === 'GET' || method === 'HEAD');
    route.onRequest = [admission(gate, deps, bodiless), ...hooksOf(route.onRequest)];
    if (!bodiless) route.preValidation = [refuseNul, ...hooksOf(route.preValidation)];
  });
  registerBodyParsers(app);
}

/** An operation's rate limit, scaled, with the parts of its headers that never change. */
interface OperationLimit {
  permitted: number;
  windowMs: number;
  limitHeader: string;
  policyHeader: string;
  /** `RateLimit` up to its remaining count */
  remainingPrefix: string;
}

function operationLimits(config: Config): Record<OperationId, OperationLimit> {
  const limits = {} as Record<OperationId, OperationLimit>;
  for (const operation of Object.keys(OPERATIONS) as OperationId[]) {
    const { limit, windowMs } = OPERATIONS[operation];
    const permitted = scaledLimit(limit, config.rateLimitScale);
    limits[operation] = {
      permitted,
      windowMs,
      limitHeader: String(permitted),
      policyHeader: `"${operation}";q=${permitted};w=${windowMs / 1000}`,
      remainingPrefix: `"${operation}";r=`,
    };
  }
  return limits;
}

/** What the hooks of an operation's route know of it. */
interface Gate {
  config: FastifyContextConfig;
  operation: OperationId;
  limit: OperationLimit;
}

/**
 * Callback style, and synchronous when the key and the counter are answered from memory: a cached
 * read then goes from here to its handler without waiting for a turn of the event loop.
 */
function admission(gate: Gate, deps: PipelineDeps, bodiless: boolean): onRequestHookHandler {
  const admitted = (request: FastifyRequest, done: HookHandlerDoneFunction) => {
    const found = bodiless && request.url.includes('%00') ? nulPath(request.query, 'query') : null;
    done(found === null ? undefined : nulError(found));
  };
  return (request, reply, done) => {
    let pending: Promise<void> | undefined;
    try {
      pending = admit(request, reply, gate, deps);
    } catch (error) {
      done(error as FastifyError);
      return;
    }
    if (pending === undefined) admitted(request, done);
    else
      pending.then(
        () => admitted(request, done),
        (error: unknown) => done(error as FastifyError),
      );
  };
}

// PostgreSQL text cannot hold NUL; refusing it everywhere keeps both databases answering alike.
// A query string can only hold a NUL as `%00` (Node refuses a raw one), so a URL without it and a
// request without a body are not walked.
const refuseNul: preValidationHookHandler = (request, _reply, done) => {
  const found =
    (request.url.includes('%00') ? nulPath(request.query, 'query') : null) ??
    (request.body === undefined ? null : nulPath(request.body, 'body'));
  done(found === null ? undefined : nulError(found));
};

const nulError = (path: string) => new InvalidFieldError(path, 'must not contain NUL characters');
const holdsNul = (text: string) => text.includes('\u0000');
const nulPath = (value: unknown, path: string) => stringPath(value, path, holdsNul);

/** A route's own hooks of one kind, as a list. */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * Origin policy, key, rate limit and permission of an operation's request; a promise only when the key
 * or the counter had to be waited for.
 */
function admit(
  request: FastifyRequest,
  reply: FastifyReply,
  gate: Gate,
  deps: PipelineDeps,
): Promise<void> | undefined {
  const { config, operation } = gate;
  // An operation without a body ignores the type of whatever is sent (decisions §4), even an
  // empty or malformed one, which Fastify would otherwise refuse with 415 before any handler.
  if (config.body === undefined && request.headers['content-type'] !== undefined) {
    delete request.headers['content-type'];
  }

  const origin = request.headers.origin;
  if (config.crossOrigin === true) {
    // Before the key is checked, so that a browser can read every answer, errors included.
    if (origin !== undefined && !originAllowed(origin, deps.config)) {
      throw new ForbiddenError(`Origin '${origin}' is not allowed.`);
    }
    applyCorsHeaders(reply, origin, deps.config);
  } else if (origin !== undefined) {
    throw new ForbiddenError(CROSS_ORIGIN_MESSAGE);
  }

  const auth = authenticate(request, operation, deps);
  if (auth instanceof Promise) {
    return auth.then((resolved) => limitAndPermit(request, reply, gate, resolved, deps));
  }
  return limitAndPermit(request, reply, gate, auth, deps);
}

function limitAndPermit(
  request: FastifyRequest,
  reply: FastifyReply,
  gate: Gate,
  auth: KeyAuth,
  deps: PipelineDeps,
): Promise<void> | undefined {
  request.auth = auth;
  const now = deps.clock.now();
  const counted = deps.counters.increment(`${gate.operation}:${auth.actor.keyId}`, gate.limit.windowMs, now);
  if (counted instanceof Promise) {
    return counted.then((count) => permit(reply, gate, auth, deps, count, now));
  }
  permit(reply, gate, auth, deps, counted, now);
  return undefined;
}

function permit(
  reply: FastifyReply,
  { config, operation, limit }: Gate,
  auth: KeyAuth,
  deps: PipelineDeps,
  { count, resetAt }: WindowCount,
  now: number,
): void {
  const { permitted, windowMs } = limit;
  setRateLimitHeaders(reply, limit, count, resetAt, now);
  if (count > permitted) {
    deps.metrics?.refused(operation, 'operation');
    throw new TooManyRequestsError(
      `Rate limit of ${permitted} requests per ${windowMs / 1000} seconds exceeded for this operation.`,
      Math.max(1, Math.ceil((resetAt - now) / 1000)),
    );
  }
  const permission = config.permission;
  if (permission !== undefined && !auth.actor.permissions.has(permission)) {
    throw new ForbiddenError(`This API key lacks the permission '${permission}'.`);
  }
}

/**
 * Failed attempts are counted per client address, and once too many have failed, further failures
 * answer 429 instead of 403. A valid key is always served: the limit slows guessing without letting
 * one client's mistakes lock out everybody behind the same address.
 */
function authenticate(
  request: FastifyRequest,
  operation: OperationId,
  deps: PipelineDeps,
): KeyAuth | Promise<KeyAuth> {
  const header = request.headers['x-api-key'];
  const key = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!key) return refuse(request, operation, deps, 'No API Key was provided.');
  const auth = deps.keys.resolve(key);
  if (auth instanceof Promise) {
    return auth.then((resolved) => resolved ?? refuse(request, operation, deps, 'API Key is invalid.'));
  }
  return auth ?? refuse(request, operation, deps, 'API Key is invalid.');
}

async function refuse(
  request: FastifyRequest,
  operation: OperationId,
  deps: PipelineDeps,
  message: string,
): Promise<never> {
  const clientKey = `auth-failures:${request.ip}`;
  const now = deps.clock.now();
  const failures = await deps.counters.increment(clientKey, AUTH_FAILURES.windowMs, now);
  if (failures.count > scaledLimit(AUTH_FAILURES.limit, deps.config.rateLimitScale)) {
    deps.metrics?.refused(operation, 'auth_failures');
    throw new TooManyRequestsError(
      'Too many failed authentication attempts from this address. Try again later.',
      Math.max(1, Math.ceil((failures.resetAt - now) / 1000)),
    );
  }
  throw new ForbiddenError(message);
}

function setRateLimitHeaders(
  reply: FastifyReply,
  limit: OperationLimit,
  count: number,
  resetAt: number,
  now: number,
): void {
  const consumed = Math.min(count, limit.permitted);
  const secondsLeft = Math.max(0, Math.ceil((resetAt - now) / 1000));
  reply.header('x-ratelimit-limit', limit.limitHeader);
  // Deliberately the count consumed in this window (the specification's meaning), not what is left.
  reply.header('x-ratelimit-remaining', String(consumed));
  reply.header('x-ratelimit-reset', String(Math.floor(resetAt / 1000)));
  reply.header('ratelimit-policy', limit.policyHeader);
  reply.header('ratelimit', `${limit.remainingPrefix}${limit.permitted - consumed};t=${secondsLeft}`);
}
