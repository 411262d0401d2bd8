import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import { assertMay, type UseCaseContext } from '../auth/actor.ts';
import type { KeyAuth, KeysService } from '../auth/keys.service.ts';
import type { Permission } from '../auth/permissions.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { AppError, TooManyRequestsError } from '../errors.ts';
import { AUTH_FAILURES, OPERATIONS, scaledLimit, type OperationId } from '../http/operations.ts';
import type { CounterStore } from '../ratelimit/counter-store.ts';
import type { IdempotencyStore, IdempotentRun } from '../shared/idempotency-store.ts';
import { refusalOf } from './mcp.results.ts';

export interface KeyGateDeps {
  config: Config;
  clock: Clock;
  counters: CounterStore;
  keys: KeysService;
  idempotency: IdempotencyStore;
}

const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** Why a request to the writer's server is refused before any MCP message is read. */
export interface KeyRefusal {
  status: 400 | 401 | 429;
  message: string;
  retryAfter?: number;
}

/**
 * The API key of a request to the writer's MCP server (`X-Api-Key`, or `Authorization: Bearer`):
 * the same resolution as every API operation, with failures counted per client address as theirs
 * are (decisions.md §3), but answered 401, as an MCP client expects of a missing credential.
 */
export async function keyOf(request: FastifyRequest, deps: KeyGateDeps): Promise<KeyAuth | KeyRefusal> {
  const header = request.headers['x-api-key'];
  const given =
    (Array.isArray(header) ? header[0] : header)?.trim() ||
    /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (given === undefined || given === '') {
    return { status: 401, message: 'No API Key was provided (X-Api-Key, or Authorization: Bearer).' };
  }
  const auth = await deps.keys.resolve(given);
  if (auth !== null) return auth;
  const now = deps.clock.now();
  const failures = await deps.counters.increment(`auth-failures:${request.ip}`, AUTH_FAILURES.windowMs, now);
  if (failures.count > scaledLimit(AUTH_FAILURES.limit, deps.config.rateLimitScale)) {
    return {
      status: 429,
      message: 'Too many failed authentication attempts from this address. Try again later.',
      retryAfter: Math.max(1, Math.ceil((failures.resetAt - now) / 1000)),
    };
  }
  return { status: 401, message: 'API Key is invalid.' };
}

/** The request's Idempotency-Key, undefined without one; a malformed one is refused. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined | KeyRefusal {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  return typeof header === 'string' && IDEMPOTENCY_KEY.test(header)
    ? header
    : { status: 400, message: 'Idempotency-Key must be 1-255 printable ASCII characters.' };
}

/**
 * What a tool of the writer's server runs under: the key's context, its operation's rate limit and
 * permission checked as the operation's route would (the same counter, so calls over MCP and over
 * HTTP share one window), and a write under the request's Idempotency-Key.
 */
export class KeyGate {
  constructor(
    private readonly deps: KeyGateDeps,
    private readonly auth: KeyAuth,
    private readonly ipAddress: string,
    private readonly idempotencyKey: string | undefined,
  ) {}

  get context(): UseCaseContext {
    return { scope: this.auth.scope, actor: this.auth.actor, ipAddress: this.ipAddress };
  }

  may(permission: Permission): boolean {
    return this.auth.actor.permissions.has(permission);
  }

  /** Counts a call of `operation` against the key's limit, then checks `permission` (when one is named). */
  async admit(operation: OperationId, permission: Permission | null): Promise<void> {
    const { limit, windowMs } = OPERATIONS[operation];
    const permitted = scaledLimit(limit, this.deps.config.rateLimitScale);
    const now = this.deps.clock.now();
    const counted = await this.deps.counters.increment(
      `${operation}:${this.auth.actor.keyId}`,
      windowMs,
      now,
    );
    if (counted.count > permitted) {
      throw new TooManyRequestsError(
        `Rate limit of ${permitted} requests per ${windowMs / 1000} seconds exceeded for ${operation}.`,
        Math.max(1, Math.ceil((counted.resetAt - now) / 1000)),
      );
    }
    if (permission !== null) assertMay(this.auth.actor, permission);
  }

  /**
   * A write: without an Idempotency-Key, `work` with the key's context; with one, in the key's
   * transaction (decision 0021), its result kept with the change, and a retry of the same call given
   * the kept result. A refusal is kept too; a failure of ours frees the key.
   */
  async write(
    tool: string,
    args: unknown,
    work: (ctx: UseCaseContext) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    if (this.idempotencyKey === undefined) return work(this.context);
    const fingerprint = createHash('sha256')
      .update(`mcp ${tool}\n${JSON.stringify(args)}`)
      .digest('base64url');
    const claim = await this.deps.idempotency.begin(this.auth.actor.keyId, this.idempotencyKey, fingerprint);
    if (claim.kind === 'replay') return JSON.parse(claim.answer.body) as CallToolResult;
    const run = claim.run;
    let result: CallToolResult;
    try {
      result = await work(joining(this.context, run));
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) {
        await run.abandon();
        throw error;
      }
      result = refusalOf(error);
      await run.finish(kept(error.status, result), false);
      return result;
    }
    await run.finish(kept(200, result), false);
    return result;
  }
}

/** The context of a call under a key: its use cases join the run's transaction. */
function joining(ctx: UseCaseContext, run: IdempotentRun): UseCaseContext {
  return Object.defineProperties(ctx, {
    transaction: { get: () => run.transaction, enumerable: true },
    join: { value: () => run.open(), enumerable: true },
  });
}

const kept = (status: number, result: CallToolResult) => ({
  status,
  contentType: 'application/json',
  etag: null,
  body: JSON.stringify(result),
});
