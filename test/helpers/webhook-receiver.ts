import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** performance.now() when the whole body had arrived */
  at: number;
}

/** What the receiver answers the n-th request (from 0): a status, or 'hang' (never answers). */
export type Responder = (request: Received, index: number) => number | 'hang';

/**
 * A real webhook receiver on 127.0.0.1, port 0: records every request, answers as told. Hanging
 * requests are cut when it closes.
 */
export async function startReceiver(respond: Responder = () => 204) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  let answer = respond;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      const index = received.push(request) - 1;
      waiters.splice(0).forEach((wake) => wake());
      const status = answer(request, index);
      if (status !== 'hang') res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    set respond(next: Responder) {
      answer = next;
    },
    /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
    async waitFor(count: number, timeoutMs = 5_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received;
    },
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * A Standard Webhooks verifier written from the specification: the signed content is
 * `id.timestamp.body`, HMAC-SHA256 keyed with the base64 bytes after `whsec_`; the header holds
 * space-separated `v1,<base64>` signatures, any of which may match (compared in constant time); the
 * timestamp must lie within `toleranceSeconds` of now. Returns the parsed payload, or throws.
 */
export function verifyWebhook(
  secret: string,
  headers: http.IncomingHttpHeaders,
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): { type: string; timestamp: string; data: unknown } {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') {
    throw new Error('missing webhook headers');
  }
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) {
    throw new Error('timestamp outside the tolerance');
  }
  if (!secret.startsWith('whsec_')) throw new Error('not a whsec_ secret');
  const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new Error('no signature matches');
  return JSON.parse(body) as { type: string; timestamp: string; data: unknown };
}
