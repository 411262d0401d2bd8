import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { emptyProject } from './helpers/import-client.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { buildZip } from './helpers/zip.ts';

const t = useTestApp();
const LIMIT = 64 * 1024 * 1024;

const archive = () =>
  buildZip([
    { name: 'v/S/1 A.md', data: '---\ntype: page\ntitle: A\nslug: a\n---published\n\nThe body of A.\n' },
    { name: 'v/S/2 B.md', data: '---\ntype: page\ntitle: B\nslug: b\n---published\n\nThe body of B.\n' },
  ]);

interface Answer {
  status: number;
  body: string;
}

/**
 * POST /api/v1/import over a real socket: `write` sends the body (or part of it) and may end the
 * request; the answer is awaited whether or not the whole body was sent.
 */
async function post(headers: Record<string, string | number>, write: (req: http.ClientRequest) => void) {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/api/v1/import', headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      },
    );
    // The server may close the connection while the rest of a refused body is still being sent.
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    write(req);
  });
}

describe('POST /import reads its raw body as it arrives', () => {
  it('imports a chunked body sent without a Content-Length', async () => {
    const { key } = await emptyProject(t.deps);
    const zip = archive();
    const answer = await post(
      { 'x-api-key': key, 'content-type': 'application/zip', 'transfer-encoding': 'chunked' },
      (req) => {
        // In small pieces: the body reaches the server as many chunks.
        for (let at = 0; at < zip.length; at += 100) req.write(zip.subarray(at, at + 100));
        req.end();
      },
    );
    expect(answer.status, answer.body).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ pages: 2 });
    const titles = Object.values(
      (await client(t.app, key).get('/all')).json<{ page: Record<string, { title: string }> }>().page,
    ).map((page) => page.title);
    expect(titles.sort()).toEqual(['A', 'B']);
  });

  it('refuses a Content-Length over the limit before the body is sent', async () => {
    const { key } = await emptyProject(t.deps);
    // Only a kilobyte of the 64 MiB announced is ever sent: the answer cannot wait for the rest.
    const answer = await post(
      { 'x-api-key': key, 'content-type': 'application/zip', 'content-length': LIMIT + 1 },
      (req) => req.write(Buffer.alloc(1024)),
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({
      error: { message: 'The archive is larger than 64 MiB.', httpCode: 413, code: 413 },
    });
    expect((await client(t.app, key).get('/version')).json()).toEqual([]);
  });

  it('refuses a chunked body once it passes the limit', async () => {
    const { key } = await emptyProject(t.deps);
    const chunk = Buffer.alloc(1024 * 1024);
    let sent = 0;
    const endless = new Readable({
      read() {
        sent += chunk.length;
        this.push(sent > LIMIT + chunk.length ? null : chunk);
      },
    });
    const res = await client(t.app, key).post('/import', undefined, {
      payload: endless,
      headers: { 'content-type': 'application/zip' },
    });
    expect(res.statusCode).toBe(413);
    expect(expectErrorShape(res).message).toBe('The archive is larger than 64 MiB.');
  });

  it('answers 400 to a Content-Length that is not the length sent, either way', async () => {
    const { key } = await emptyProject(t.deps);
    const zip = archive();
    const send = (length: string) =>
      client(t.app, key).post('/import', undefined, {
        payload: zip,
        headers: { 'content-type': 'application/zip', 'content-length': length },
      });
    for (const length of [zip.length - 10, zip.length + 10, 1]) {
      const res = await send(String(length));
      expect(res.statusCode, `Content-Length ${length}`).toBe(400);
      expect(expectErrorShape(res).message).toBe('Request body length does not match Content-Length.');
    }
    const notANumber = await send('12 bytes');
    expect(notANumber.statusCode).toBe(400);
    expect(expectErrorShape(notANumber).message).toBe('Content-Length must be a number of bytes.');
    expect((await client(t.app, key).get('/version')).json()).toEqual([]);
    // The same archive with its true length is imported.
    const right = await send(String(zip.length));
    expect(right.statusCode, right.body).toBe(201);
  });
});
