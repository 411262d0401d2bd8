import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD } from '../src/http/compression.ts';
import { createWorld } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

/*
 * Answers of JSON and HTML over COMPRESSION_THRESHOLD are compressed as Accept-Encoding asks;
 * smaller ones, other types (a ZIP export) and clients that ask for nothing go as they are.
 */

const t = useTestApp();

const LONG = `## Section\n\n${'Some words of a long page, repeated. '.repeat(200)}`;

async function pageOf(key: string, documentationId: number, content = LONG) {
  const res = await client(t.app, key).post(`/documentation/${documentationId}/page`, {
    title: 'Long',
    content,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ id: number; slug: string }>();
}

describe('response compression', () => {
  it('compresses a JSON answer over the threshold with gzip or brotli, as asked', async () => {
    const w = await createWorld(t.deps);
    const page = await pageOf(w.key, w.documentation.id);
    const plain = await client(t.app, w.key).get(`/page/${page.id}`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESSION_THRESHOLD);

    const gzip = await client(t.app, w.key).get(`/page/${page.id}`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gzip.statusCode).toBe(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(String(gzip.headers.vary)).toMatch(/accept-encoding/i);
    expect(gzip.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
    expect(JSON.parse(gunzipSync(gzip.rawPayload).toString('utf8'))).toEqual(plain.json());

    const br = await client(t.app, w.key).get(`/page/${page.id}`, {
      headers: { 'accept-encoding': 'br;q=1, gzip;q=0.5' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString('utf8'))).toEqual(plain.json());
  });

  it('leaves an answer under the threshold as it is', async () => {
    const w = await createWorld(t.deps);
    const page = await pageOf(w.key, w.documentation.id, 'Short.');
    const res = await client(t.app, w.key).get(`/page/${page.id}`, {
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBeLessThan(COMPRESSION_THRESHOLD);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json()).toMatchObject({ id: page.id });
  });

  it('replays an idempotent answer compressed too, the same once decoded', async () => {
    const w = await createWorld(t.deps);
    const send = () =>
      client(t.app, w.key).post(
        `/documentation/${w.documentation.id}/page`,
        { title: 'Once', content: LONG },
        { headers: { 'accept-encoding': 'gzip', 'idempotency-key': 'compressed-once' } },
      );
    const first = await send();
    const again = await send();
    expect([first.statusCode, again.statusCode]).toEqual([200, 200]);
    expect(again.headers['idempotent-replayed']).toBe('true');
    for (const res of [first, again]) expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(again.rawPayload).toString('utf8')).toBe(gunzipSync(first.rawPayload).toString('utf8'));
  });

  it("compresses the reader site's HTML and the document /docs reads", async () => {
    const w = await createWorld(t.deps, { access: 'public' });
    const page = await pageOf(w.key, w.documentation.id);
    expect((await client(t.app, w.key).put(`/page/${page.id}/publish`)).statusCode).toBe(200);
    const site = await t.app.inject({
      url: `/sites/${w.project.id}/v1/guides/${page.slug}`,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(site.statusCode).toBe(200);
    expect(site.headers['content-type']).toMatch(/^text\/html/);
    expect(site.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(site.rawPayload).toString('utf8')).toContain('Some words of a long page');

    const docs = await t.app.inject({ url: '/docs/json', headers: { 'accept-encoding': 'gzip' } });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(docs.rawPayload).toString('utf8'))).toMatchObject({ openapi: '3.1.0' });
  });

  it('sends a ZIP export as it is: it is compressed already', async () => {
    const w = await createWorld(t.deps);
    await pageOf(w.key, w.documentation.id);
    const res = await client(t.app, w.key).get('/export', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/zip/);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.rawPayload.subarray(0, 2).toString('latin1')).toBe('PK');
  });
});
