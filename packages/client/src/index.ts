import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './api.ts';

/*
 * Quire's typed client: openapi-fetch over the types generated from Quire's OpenAPI document
 * (src/api.ts, `npm run generate:client`), and the little every caller would otherwise write by hand:
 * an Idempotency-Key on every write, 429s waited out as Retry-After says, writes retried safely
 * after a network error or a 5xx, cursors followed, and files sent as multipart.
 */

export type { components, paths };
export type Schemas = components['schemas'];

export interface QuireClientOptions {
  /** the API's base, such as `https://docs.acme.io/api/v1` */
  baseUrl: string;
  /** an API key of the project; sent as `X-Api-Key` */
  key: string;
  /** 429 answers waited out per request before the 429 is returned (default 3) */
  rateLimitWaits?: number;
  /** a `Retry-After` longer than this many seconds is not waited for (default 60) */
  maxRetryAfterSeconds?: number;
  /** further attempts after a network error or a 5xx (default 2); a write keeps its key */
  retries?: number;
  /** the first backoff before such an attempt, doubled each time (default 500 ms) */
  backoffMs?: number;
  /** makes the Idempotency-Key of a write that has none (default: a random UUID) */
  idempotencyKey?: () => string;
  /** the fetch used underneath (default: the global one) */
  fetch?: (request: Request) => Promise<Response>;
}

export interface QuireClient {
  /** every operation of the document, typed: `api.GET('/page/{id}', …)` */
  api: Client<paths>;
  /** Uploads an OpenAPI definition as multipart (published unless `publish: false`). */
  uploadReference(
    versionId: number,
    file: Blob,
    options?: { publish?: boolean; fileName?: string },
  ): ReturnType<typeof uploadReference>;
  /** Imports an export archive into the key's project, as multipart. */
  importArchive(
    archive: Blob,
    options?: { published?: 'keep' | 'draft'; strict?: boolean },
  ): ReturnType<typeof importArchive>;
  /** A page's revisions, newest first, following the cursor page after page. */
  history(pageId: number, hits?: number): AsyncGenerator<Schemas['Revision']>;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `Retry-After` in seconds, or as an HTTP date; missing or unreadable: one second. */
export function retryAfterSeconds(header: string | null): number {
  if (header === null || header.trim() === '') return 1;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? 1 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The fetch the client sends through. A write gets its Idempotency-Key here, once, and its body is
 * read once: every attempt sends the same bytes under the same key, so a retry never writes twice.
 */
export function resilientFetch(options: QuireClientOptions): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const waits = options.rateLimitWaits ?? 3;
  const maxWait = options.maxRetryAfterSeconds ?? 60;
  const retries = options.retries ?? 2;
  const backoff = options.backoffMs ?? 500;
  const newKey = options.idempotencyKey ?? (() => crypto.randomUUID());
  return async (request) => {
    const headers = new Headers(request.headers);
    const write = WRITES.has(request.method);
    if (write && !headers.has('idempotency-key')) headers.set('idempotency-key', newKey());
    const bytes = request.body === null ? null : await request.arrayBuffer();
    let waited = 0;
    let attempt = 0;
    for (;;) {
      const init: RequestInit = {
        method: request.method,
        headers,
        redirect: 'error',
        signal: request.signal,
      };
      if (bytes !== null) init.body = bytes;
      let response: Response;
      try {
        response = await send(new Request(request.url, init));
      } catch (error) {
        if (attempt >= retries || request.signal.aborted) throw error;
        await sleep(backoff * 2 ** attempt++);
        continue;
      }
      if (response.status === 429 && waited < waits) {
        const seconds = retryAfterSeconds(response.headers.get('retry-after'));
        if (seconds <= maxWait) {
          waited++;
          await response.body?.cancel();
          await sleep(seconds * 1000);
          continue;
        }
      }
      if (response.status >= 500 && attempt < retries) {
        await response.body?.cancel();
        await sleep(backoff * 2 ** attempt++);
        continue;
      }
      return response;
    }
  };
}

/** A client of one Quire with one key. */
export function createQuireClient(options: QuireClientOptions): QuireClient {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { 'X-Api-Key': options.key },
    fetch: resilientFetch(options),
  });
  return {
    api,
    uploadReference: (versionId, file, opts = {}) => uploadReference(api, versionId, file, opts),
    importArchive: (archive, opts = {}) => importArchive(api, archive, opts),
    history: (pageId, hits = 50) => history(api, pageId, hits),
  };
}

/** One file in the multipart field `file`, as the upload operations take it. */
function fileForm(file: Blob, name: string): FormData {
  const form = new FormData();
  form.append('file', file, name);
  return form;
}

function uploadReference(
  api: Client<paths>,
  versionId: number,
  file: Blob,
  options: { publish?: boolean; fileName?: string },
) {
  return api.POST('/version/{versionId}/reference', {
    params: { path: { versionId }, query: { publish: options.publish ?? true } },
    body: { file: '' },
    bodySerializer: () => fileForm(file, options.fileName ?? 'openapi'),
  });
}

function importArchive(
  api: Client<paths>,
  archive: Blob,
  options: { published?: 'keep' | 'draft'; strict?: boolean },
) {
  return api.POST('/import', {
    params: { query: { published: options.published ?? 'keep', strict: options.strict ?? false } },
    body: { file: '' },
    bodySerializer: () => fileForm(archive, 'archive.zip'),
  });
}

async function* history(api: Client<paths>, pageId: number, hits: number) {
  let cursor: string | undefined;
  do {
    const { data, error } = await api.GET('/page/{id}/history', {
      params: { path: { id: pageId }, query: { hits, ...(cursor !== undefined ? { cursor } : {}) } },
    });
    if (error !== undefined) throw new QuireError(error.error.message, error.error.httpCode);
    yield* data.data;
    cursor = data.cursor ?? undefined;
  } while (cursor !== undefined);
}

/** An error answer of the API, thrown where a helper cannot return it (an iterator). */
export class QuireError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
