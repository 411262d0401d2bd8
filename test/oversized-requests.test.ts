import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_URL_LENGTH } from '../src/app.ts';
import { createWorld } from './helpers/factories.ts';
import { useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET sent over a real socket: Node refuses headers too large before Fastify sees a request. */
async function get(port: number, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    request.on('error', reject);
  });
}

function expectEnvelope(answer: Answer, status: number): string {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['x-request-id']).toBeDefined();
  const body = JSON.parse(answer.body) as { error: { message: string; httpCode: number; code: number } };
  expect(body).toEqual({ error: { message: expect.any(String) as string, httpCode: status, code: status } });
  return body.error.message;
}

describe('a URL or headers too long, over a real socket', () => {
  it('answers 414 to a URL over the limit and 431 to headers over 16 KiB, in the envelope', async () => {
    const w = await createWorld(t.deps);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const key = { 'x-api-key': w.key };
    // The query makes up the length: an operation without a path parameter.
    const url = (length: number) => {
      const path = '/api/v1/version?q=';
      return path + 'q'.repeat(length - path.length);
    };

    expect((await get(port, url(MAX_URL_LENGTH), key)).status).toBe(200);
    for (const length of [MAX_URL_LENGTH + 1, 12_000]) {
      const tooLong = await get(port, url(length), key);
      expect(expectEnvelope(tooLong, 414)).toBe(
        `The URL is too long: at most ${MAX_URL_LENGTH} characters, query included.`,
      );
    }
    // A path parameter over 100 characters, the router's own limit.
    const param = await get(port, `/api/v1/page/${'1'.repeat(101)}`, key);
    expect(expectEnvelope(param, 414)).toMatch(/exceeding the max param length/);

    const big = await get(port, '/api/v1/version', { ...key, 'x-big': 'a'.repeat(17 * 1024) });
    expect(expectEnvelope(big, 431)).toBe(
      'Request headers are too large (at most 16 KiB, the request line included).',
    );
    const many = Object.fromEntries(Array.from({ length: 800 }, (_, i) => [`x-h${i}`, 'v'.repeat(24)]));
    expectEnvelope(await get(port, '/api/v1/version', { ...key, ...many }), 431);
    // The server goes on answering.
    expect((await get(port, '/api/v1/version', key)).status).toBe(200);
  });
});
