import { createHmac } from 'node:crypto';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import { lazyModule } from '../../shared/lazy-module.ts';
import {
  hostOf,
  isForbiddenAddress,
  isForbiddenName,
  type ResolvedAddress,
  type Resolver,
} from './webhook-address.ts';
import { secretKeyBytes } from './webhook-secrets.ts';

/** What one attempt came to. */
export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface SendOptions {
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE: the address rule is off */
  allowPrivate: boolean;
  resolver: Resolver;
}

export interface Message {
  id: string;
  url: string;
  secret: string;
  body: string;
  /** seconds since the epoch, the webhook-timestamp header */
  timestamp: number;
}

const undici = lazyModule<typeof import('undici')>('undici');

/** `v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the secret's bytes (Standard Webhooks). */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKeyBytes(secret))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The lookup every connection makes: the connection goes to an address this check passed, so a name
 * that resolved to a public address when registered and to a private one now (DNS rebinding) reaches
 * nothing. IP literals never come here (the socket skips the lookup): send() checks them itself.
 */
function guardedLookup(resolve: Resolver): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = options.family;
        const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : null;
        const allowed = addresses.filter(
          (a) => !isForbiddenAddress(a.address) && (wanted === null || a.family === wanted),
        );
        const first = allowed[0];
        if (first === undefined) {
          const error: NodeJS.ErrnoException = new Error(
            `${hostname} resolves only to loopback, private, link-local or reserved addresses; refused`,
          );
          error.code = 'EADDRREFUSED';
          callback(error, '', 0);
        } else if (options.all === true) {
          (callback as unknown as (e: null, all: ResolvedAddress[]) => void)(null, allowed);
        } else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/**
 * Sends signed deliveries. One connection pool per dispatcher; no redirect is followed (a 3xx is a
 * failed attempt), and an attempt that has no whole answer within the timeout is aborted.
 */
export class WebhookSender {
  /** Made at the first attempt: a process that never sends (an admin command) never loads undici. */
  private pool: Agent | null = null;

  constructor(private readonly options: SendOptions) {}

  private get agent(): Agent {
    const { timeoutMs, allowPrivate, resolver } = this.options;
    this.pool ??= new (undici().Agent)({
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connections: 16,
      ...(allowPrivate ? {} : { connect: { lookup: guardedLookup(resolver) } }),
    });
    return this.pool;
  }

  async send(message: Message, stop: AbortSignal): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const host = hostOf(new URL(message.url));
    if (
      !this.options.allowPrivate &&
      (isForbiddenName(host) || (net.isIP(host) !== 0 && isForbiddenAddress(host)))
    ) {
      return {
        statusCode: null,
        durationMs: 0,
        error: `${host} is a loopback, private or internal address; refused`,
      };
    }
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const response = await undici().request(message.url, {
        dispatcher: this.agent,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Quire-Webhooks/1',
          'webhook-id': message.id,
          'webhook-timestamp': String(message.timestamp),
          'webhook-signature': signature(message.secret, message.id, message.timestamp, message.body),
        },
        body: message.body,
        signal: AbortSignal.any([timeout, stop]),
      });
      // The answer's body is read (to free the connection) and not kept.
      await response.body.dump({ limit: 64 * 1024 });
      const statusCode = response.statusCode;
      const ok = statusCode >= 200 && statusCode < 300;
      return { statusCode, durationMs: elapsed(), error: ok ? null : `answered ${statusCode}` };
    } catch (error) {
      const why = timeout.aborted
        ? `no answer within ${this.options.timeoutMs} ms`
        : stop.aborted
          ? 'the dispatcher stopped during the attempt'
          : describe(error);
      return { statusCode: null, durationMs: elapsed(), error: why };
    }
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici wraps the socket's error: the cause says what happened (refused, reset, our lookup's refusal).
  const cause = (error as Error & { cause?: unknown }).cause;
  const inner = cause instanceof Error ? cause : error;
  const code = (inner as NodeJS.ErrnoException).code;
  return code !== undefined && !inner.message.includes(code) ? `${code}: ${inner.message}` : inner.message;
}
