import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { createPublicSite, sitePage, visit } from './site-helpers.ts';

const t = useTestApp();

const isSiteHtml = (res: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
  expect(res.statusCode).toBeLessThan(500);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.body.startsWith('<!doctype html>')).toBe(true);
  expect(res.body).not.toContain('"error"');
};

describe('bad input on the site answers its own pages (never a 5xx, never JSON)', () => {
  it('answers unknown, traversing and undecodable paths with the not-found page', async () => {
    const w = await createPublicSite(t.deps);
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Start', slug: 'start' });
    const base = `/sites/${w.project.id}`;
    for (const path of [
      '/nothing/here/at/all/really',
      '/v1/guides/start/extra',
      '/_site/../../package.json',
      '/_site/..%2f..%2fpackage.json',
      '/_site/%2e%2e/%2e%2e/package.json',
      '/_site/site.css',
      '/_site/',
      '/v1/guides/%FF',
      '/v1/%E0%A4%A',
      '/%00',
      '/v1/guides/start%00',
      `/${'a'.repeat(3000)}`,
      '/login',
      '/mcp/nothing',
    ]) {
      const res = await visit(t.app, `${base}${path}`);
      expect(res.statusCode, path).toBe(404);
      isSiteHtml(res);
    }
    for (const id of ['99999999', '9999999999', 'abc', '0', '-1']) {
      const res = await visit(t.app, `/sites/${id}/`);
      expect(res.statusCode, id).toBe(404);
      isSiteHtml(res);
    }
  });

  it('keeps its own assets immutable under hashed names, and answers HEAD', async () => {
    const w = await createPublicSite(t.deps);
    const landing = await visit(t.app, `/sites/${w.project.id}/`);
    expect(landing.statusCode).toBe(200);
    const css = /href="([^"]+\/_site\/site\.[A-Za-z0-9_-]+\.css)"/.exec(landing.body)?.[1];
    const js = /src="([^"]+\/_site\/site\.[A-Za-z0-9_-]+\.js)"/.exec(landing.body)?.[1];
    expect(css).toBeDefined();
    expect(js).toBeDefined();
    for (const [url, type] of [
      [css, 'text/css; charset=utf-8'],
      [js, 'text/javascript; charset=utf-8'],
    ] as const) {
      const res = await visit(t.app, String(url));
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const head = await t.app.inject({ method: 'HEAD', url: String(url) });
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
    }
    expect(landing.headers['content-security-policy']).toContain("script-src 'self'");
  });
});

describe('freshness and caching (site.md §5)', () => {
  it('shows a change at the very next request, and revalidates with strong tags', async () => {
    const w = await createPublicSite(t.deps);
    const api = (await import('../helpers/test-app.ts')).client(t.app, w.key);
    const id = await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Before',
      slug: 'page',
      content: 'First words.',
    });
    const url = `/sites/${w.project.id}/v1/guides/page`;
    const first = await visit(t.app, url);
    expect(first.body).toContain('First words.');
    const etag = String(first.headers.etag);
    expect((await visit(t.app, url, { 'if-none-match': etag })).statusCode).toBe(304);
    // A draft changes nothing readers see: the same answer, the same tag.
    expect((await api.put(`/page/${id}`, { content: 'Second words.' })).statusCode).toBe(200);
    const drafted = await visit(t.app, url, { 'if-none-match': etag });
    expect(drafted.statusCode).toBe(304);
    expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
    const published = await visit(t.app, url, { 'if-none-match': etag });
    expect(published.statusCode).toBe(200);
    expect(published.body).toContain('Second words.');
    expect(published.headers.etag).not.toBe(etag);
    // A new page shows in the navigation of the pages already served.
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Newcomer', slug: 'new' });
    expect((await visit(t.app, url)).body).toContain('Newcomer');
    // A renamed section moves its pages at once.
    const renamed = await api.put(`/documentation/${w.documentation.id}`, { slug: 'manuals' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    // The old address leads to the new one (the section's former slug is kept).
    const moved = await visit(t.app, url);
    expect(moved.statusCode).toBe(301);
    expect(moved.headers.location).toBe(`/sites/${w.project.id}/v1/manuals/page`);
    expect((await visit(t.app, `/sites/${w.project.id}/v1/manuals/page`)).statusCode).toBe(200);
  });
});
