import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { client, useTestApp } from '../helpers/test-app.ts';
import { createPublicSite, sitePage, visit } from './site-helpers.ts';

const t = useTestApp();

/** A page long enough to be encoded (the threshold is 1 KiB of HTML, which the page's frame passes). */
async function longPage(marker: string) {
  const w = await createPublicSite(t.deps);
  const content =
    `${marker}\n\n` + Array.from({ length: 40 }, (_, i) => `Paragraph ${i} of the page.`).join('\n\n');
  const id = await sitePage(t.app, w.key, w.documentation.id, { title: 'Long', slug: 'long', content });
  return { w, id, url: `/sites/${w.project.id}/v1/guides/long` };
}

const decoded = (coding: string, bytes: Buffer): string =>
  (coding === 'br' ? zlib.brotliDecompressSync(bytes) : zlib.gunzipSync(bytes)).toString('utf8');

describe('the reader site: pages kept encoded', () => {
  it('sends a kept page in the coding the browser asks for, the same page as its own bytes', async () => {
    const { url } = await longPage('First words.');
    const plain = await visit(t.app, url);
    expect(plain.statusCode, plain.body).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('accept-encoding');
    expect(plain.body).toContain('First words.');

    for (const [asked, coding] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=0.5, br;q=0.9', 'br'],
    ] as const) {
      // Twice: the first is encoded as it is kept, the second is sent as kept.
      for (let round = 0; round < 2; round++) {
        const res = await visit(t.app, url, { 'accept-encoding': asked });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-encoding'], asked).toBe(coding);
        expect(res.headers.vary).toBe('accept-encoding');
        expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
        expect(res.rawPayload.length).toBeLessThan(Buffer.byteLength(plain.body));
        expect(decoded(coding, res.rawPayload)).toBe(plain.body);
      }
    }
    for (const asked of ['identity', 'deflate', 'br;q=0, gzip;q=0']) {
      const res = await visit(t.app, url, { 'accept-encoding': asked });
      expect(res.headers['content-encoding'], asked).toBeUndefined();
      expect(res.body).toBe(plain.body);
    }
  });

  it('tags each coding as its own representation and answers 304 only for the one held', async () => {
    const { url } = await longPage('Tagged.');
    const plain = await visit(t.app, url);
    const br = await visit(t.app, url, { 'accept-encoding': 'br' });
    const gzip = await visit(t.app, url, { 'accept-encoding': 'gzip' });
    const tags = [plain.headers.etag, br.headers.etag, gzip.headers.etag].map(String);
    expect(new Set(tags).size).toBe(3);
    expect(tags[1]).toBe(`${tags[0]?.slice(0, -1)}-br"`);
    expect(tags[2]).toBe(`${tags[0]?.slice(0, -1)}-gz"`);

    const held = await visit(t.app, url, {
      'accept-encoding': 'br',
      'if-none-match': String(br.headers.etag),
    });
    expect(held.statusCode).toBe(304);
    expect(held.headers['content-encoding']).toBeUndefined();
    expect(held.headers.vary).toBe('accept-encoding');
    expect(held.rawPayload.length).toBe(0);
    // The brotli bytes' tag does not stand for the identity bytes, nor the other way round.
    const otherCoding = await visit(t.app, url, { 'if-none-match': String(br.headers.etag) });
    expect(otherCoding.statusCode).toBe(200);
    expect(otherCoding.body).toBe(plain.body);
    const identityTag = await visit(t.app, url, {
      'accept-encoding': 'br',
      'if-none-match': String(plain.headers.etag),
    });
    expect(identityTag.statusCode).toBe(200);
    expect(identityTag.headers['content-encoding']).toBe('br');
  });

  it('shows a change in every coding at the next request', async () => {
    const { w, id, url } = await longPage('Before the change.');
    for (const asked of ['br', 'gzip']) {
      const res = await visit(t.app, url, { 'accept-encoding': asked });
      expect(decoded(asked, res.rawPayload)).toContain('Before the change.');
    }
    const api = client(t.app, w.key);
    const content = 'After the change.\n\n' + 'More words of the page. '.repeat(80);
    expect((await api.put(`/page/${id}`, { content })).statusCode).toBe(200);
    expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
    for (const asked of ['br', 'gzip']) {
      const res = await visit(t.app, url, { 'accept-encoding': asked });
      const html = decoded(asked, res.rawPayload);
      expect(html).toContain('After the change.');
      expect(html).not.toContain('Before the change.');
    }
  });

  it('keeps its other text encoded too: the Markdown twin', async () => {
    const { url } = await longPage('Twin.');
    const plain = await visit(t.app, `${url}.md`);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(plain.headers.vary).toBe('accept-encoding');
    expect(Buffer.byteLength(plain.body)).toBeGreaterThan(1024);
    const br = await visit(t.app, `${url}.md`, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-br"`);
    expect(decoded('br', br.rawPayload)).toBe(plain.body);
  });

  it('tags an answer it does not keep, compressed at the request, with its coding as well', async () => {
    const { w } = await longPage('Searched words.');
    const address = `/sites/${w.project.id}/search?q=paragraph`;
    const plain = await visit(t.app, address);
    expect(plain.statusCode).toBe(200);
    expect(Buffer.byteLength(plain.body)).toBeGreaterThan(1024);
    const gzip = await visit(t.app, address, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-gz"`);
    expect(decoded('gzip', gzip.rawPayload)).toBe(plain.body);
    const held = await visit(t.app, address, {
      'accept-encoding': 'gzip',
      'if-none-match': String(gzip.headers.etag),
    });
    expect(held.statusCode).toBe(304);
    const other = await visit(t.app, address, { 'if-none-match': String(gzip.headers.etag) });
    expect(other.statusCode).toBe(200);
  });

  it('leaves answers under the compression threshold as they are', async () => {
    const { w } = await longPage('Robots.');
    const robots = await visit(t.app, `/sites/${w.project.id}/robots.txt`, { 'accept-encoding': 'br' });
    expect(robots.statusCode).toBe(200);
    expect(robots.headers['content-encoding']).toBeUndefined();
    expect(robots.body).toContain('Sitemap:');
  });
});
