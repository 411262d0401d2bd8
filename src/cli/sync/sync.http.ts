import { randomUUID } from 'node:crypto';

/** What one request answered, body read whole (the API's answers are small JSON or definitions). */
export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** A request that did not get an acceptable answer, after its retries. */
export class SyncHttpError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

export interface RetryPolicy {
  /** further attempts after a network error, a 5xx or a still-running idempotent request */
  retries: number;
  /** the first backoff; doubled on each further attempt */
  backoffMs: number;
  /** 429s waited out per request before giving up */
  rateLimitWaits: number;
  /** a Retry-After above this many seconds is not waited for: the run fails instead */
  maxRetryAfterSeconds: number;
  /** a request that takes longer is abandoned (and retried, as a network error) */
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 4,
  backoffMs: 500,
  rateLimitWaits: 5,
  maxRetryAfterSeconds: 300,
  timeoutMs: 120_000,
};

export interface WriteBody {
  /** serialised once, so that every retry sends the very bytes the Idempotency-Key was first used with */
  text: string | Uint8Array<ArrayBuffer>;
  contentType: string;
}

/** What the client did, for the summary. */
export interface HttpCounters {
  reads: number;
  writes: number;
  retries: number;
  rateLimited: number;
}

/**
 * The sync's only way to the server: Node's fetch with the key, retries and 429 handling. A write gets
 * one fresh random Idempotency-Key when it is planned, reused by its retries: a key derived from the
 * body would make a legitimate revert (A → B → A within a day) replay the first answer instead of
 * writing.
 */
export class SyncHttp {
  readonly counters: HttpCounters = { reads: 0, writes: 0, retries: 0, rateLimited: 0 };

  constructor(
    private readonly apiBase: string,
    private readonly key: string,
    private readonly notice: (line: string) => void,
    private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  ) {}

  /** A GET: 2xx and 404/304 are answers; other statuses are errors. */
  async get(path: string, accept = 'application/json'): Promise<HttpAnswer> {
    this.counters.reads++;
    const answer = await this.send('GET', path, { accept }, undefined);
    if ((answer.status >= 200 && answer.status < 300) || answer.status === 404) return answer;
    throw failure('GET', path, answer);
  }

  /** A write that must succeed (2xx); any other answer is an error naming the server's message. */
  async write(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: WriteBody): Promise<HttpAnswer> {
    const answer = await this.tryWrite(method, path, body);
    if (answer.status >= 200 && answer.status < 300) return answer;
    throw failure(method, path, answer);
  }

  /** A write whose 4xx answer the caller looks at (a missing category, a page already deleted). */
  async tryWrite(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: WriteBody): Promise<HttpAnswer> {
    this.counters.writes++;
    const headers: Record<string, string> = { accept: 'application/json', 'idempotency-key': randomUUID() };
    if (body) headers['content-type'] = body.contentType;
    return this.send(method, path, headers, body?.text);
  }

  private async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | Uint8Array<ArrayBuffer> | undefined,
  ): Promise<HttpAnswer> {
    const url = `${this.apiBase}${path}`;
    let attempt = 0;
    let waits = 0;
    for (;;) {
      let answer: HttpAnswer;
      try {
        const response = await fetch(url, {
          method,
          headers: { ...headers, 'x-api-key': this.key },
          ...(body !== undefined ? { body } : {}),
          redirect: 'error',
          signal: AbortSignal.timeout(this.policy.timeoutMs),
        });
        answer = {
          status: response.status,
          contentType: response.headers.get('content-type') ?? '',
          text: await response.text(),
        };
        if (response.status === 429) {
          const seconds = retryAfterSeconds(response.headers.get('retry-after'));
          if (waits >= this.policy.rateLimitWaits || seconds > this.policy.maxRetryAfterSeconds)
            return answer;
          waits++;
          this.counters.rateLimited++;
          this.notice(`rate limited on ${method} ${path}: waiting ${seconds} s as the server asks`);
          await sleep(seconds * 1000);
          continue;
        }
      } catch (error) {
        // A redirect is refused (the key would follow it elsewhere) and would be refused again.
        if (attempt >= this.policy.retries || /redirect/i.test(networkMessage(error))) {
          throw new SyncHttpError(`${method} ${path}: ${networkMessage(error)}`, null);
        }
        attempt++;
        this.counters.retries++;
        this.notice(
          `${method} ${path}: ${networkMessage(error)}; retrying (${attempt}/${this.policy.retries})`,
        );
        await sleep(this.policy.backoffMs * 2 ** (attempt - 1));
        continue;
      }
      if (!retryable(answer, headers) || attempt >= this.policy.retries) return answer;
      attempt++;
      this.counters.retries++;
      this.notice(
        `${method} ${path}: answered ${answer.status}; retrying (${attempt}/${this.policy.retries})`,
      );
      await sleep(this.policy.backoffMs * 2 ** (attempt - 1));
    }
  }
}

/**
 * 5xx answers are retried (the server released the Idempotency-Key, so the retry runs). So is the 409
 * for a key whose first request is still running: after a dropped connection the server may still be
 * busy with the very write being retried, and its answer will be replayed once it is done.
 */
function retryable(answer: HttpAnswer, headers: Record<string, string>): boolean {
  if (answer.status >= 500) return true;
  return (
    answer.status === 409 &&
    headers['idempotency-key'] !== undefined &&
    /Idempotency-Key is still running/.test(answer.text)
  );
}

/** `Retry-After` in seconds or as an HTTP date; a missing or unreadable one waits a second. */
export function retryAfterSeconds(header: string | null): number {
  if (header === null || header.trim() === '') return 1;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? 1 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function failure(method: string, path: string, answer: HttpAnswer): SyncHttpError {
  return new SyncHttpError(
    `${method} ${path} answered ${answer.status}: ${errorMessage(answer)}`,
    answer.status,
  );
}

/** The API's error message (`{error: {message}}`), or the start of whatever else came back. */
export function errorMessage(answer: HttpAnswer): string {
  try {
    const body = JSON.parse(answer.text) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return body.error.message;
  } catch {
    // not JSON: a proxy's page, say; its first characters say enough
  }
  return answer.text.slice(0, 200).replace(/\s+/g, ' ').trim() || '(no body)';
}

function networkMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `task` over `items`, at most `limit` at a time, keeping the order of the results. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
