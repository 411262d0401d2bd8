import { describe, expect, it } from 'vitest';
import { adminContext } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/test-app.ts';
import { resultLinks, searchPage, suggestions, type Suggestions } from './search-helpers.ts';
import { createDocumentation, createPublicSite, createVersion, sitePage, visit } from './site-helpers.ts';

const t = useTestApp();

describe('the reader site: search requests, pages of results and suggestions', () => {
  it('shows the form alone without a query, and pages results with a version filter', async () => {
    const w = await createPublicSite(t.deps);
    const root = `/sites/${w.project.id}`;
    const empty = await searchPage(t.app, root, '');
    expect(empty.body).toContain('<h1>Search</h1>');
    expect(empty.body).not.toContain('class="results"');
    expect(empty.body).not.toContain('search-summary');
    expect((await visit(t.app, `${root}/search`)).statusCode).toBe(200);

    for (let i = 1; i <= 12; i++) {
      await sitePage(t.app, w.key, w.documentation.id, {
        title: `Walrus ${i}`,
        slug: `walrus-${i}`,
        content: `Walrus number ${i}.`,
      });
    }
    const first = await searchPage(t.app, root, 'walrus');
    expect(resultLinks(first.body)).toHaveLength(10);
    expect(first.body).toContain('12 results for “walrus”, page 1 of 2');
    expect(first.body).toContain(`href="${root}/search?q=walrus&amp;page=2"`);
    expect(first.body).not.toContain('rel="prev"');
    const second = await searchPage(t.app, root, 'walrus', '&page=2');
    expect(resultLinks(second.body)).toHaveLength(2);
    expect(second.body).toContain(`href="${root}/search?q=walrus"`);
    expect(new Set([...resultLinks(first.body), ...resultLinks(second.body)]).size).toBe(12);
    const past = await searchPage(t.app, root, 'walrus', '&page=7');
    expect(resultLinks(past.body)).toEqual([]);
    expect(past.body).toContain('no more results');
    for (const page of ['0', '-1', 'x', '1e3', '99999999999']) {
      expect(resultLinks((await searchPage(t.app, root, 'walrus', `&page=${page}`)).body)).toHaveLength(10);
    }

    // A second version: its own pages, found alone with v=, all without; pages name their version.
    const v2 = await createVersion(t.deps, w.project.id, { name: 'Two', slug: 'v2', published: true });
    const section = await createDocumentation(t.deps, v2.id, { title: 'Guides', slug: 'guides' });
    await sitePage(t.app, w.key, section.id, { title: 'Walrus two', slug: 'walrus-two', content: 'Walrus.' });
    const inV2 = await searchPage(t.app, root, 'walrus', '&v=v2');
    expect(resultLinks(inV2.body)).toEqual([`${root}/v2/guides/walrus-two`]);
    expect(inV2.body).toContain('<option value="v2" selected>Two</option>');
    expect(inV2.body).toMatch(/<p class="search-context">Two › Guides<\/p>/);
    expect(inV2.body).toContain('<input type="hidden" name="v" value="v2"/>');
    const all = await searchPage(t.app, root, 'walrus', '&v=nosuchversion');
    expect(all.body).toContain('13 results for “walrus”');
    const page = await visit(t.app, `${root}/v2/guides/walrus-two`);
    expect(page.body).toContain('<input type="hidden" name="v" value="v2"/>');
  });

  it('answers any query with a page of the site, and the suggestions with JSON', async () => {
    const w = await createPublicSite(t.deps);
    const root = `/sites/${w.project.id}`;
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Script', content: 'A script tag page.' });
    const long = 'a'.repeat(10 * 1024);
    const tooLong = await visit(t.app, `${root}/search?q=${long}`);
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(tooLong.body).toContain('searches are at most 500');
    expect(tooLong.body).toContain('<h1>Search</h1>');
    const tooLongJson = await visit(t.app, `${root}/search/results.json?q=${long}`);
    expect(tooLongJson.statusCode).toBe(400);
    expect(tooLongJson.json()).toEqual({ hits: [], error: expect.stringContaining('at most 500') });

    const hostile = [
      '%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      '<script>',
      '%FF',
      '%00',
      '%00script',
      '%ED%A0%80',
      '%F0%9F',
      '%',
      '%%%',
      '%01%1F%7F%C2%9F',
      '"-"',
      '-script',
      '*',
      'script"&q=other',
      `${'a%20'.repeat(400)}`,
      '%E2%80%8B',
    ];
    for (const q of hostile) {
      const page = await visit(t.app, `${root}/search?q=${q}`);
      expect(page.statusCode, q).toBeLessThan(500);
      expect([200, 400], q).toContain(page.statusCode);
      expect(page.headers['content-type'], q).toBe('text/html; charset=utf-8');
      expect(page.body, q).toMatch(/^<!doctype html>/);
      expect(page.body, q).not.toContain('<script>alert');
      expect(page.body, q).not.toContain('\u0000');
      const json = await visit(t.app, `${root}/search/results.json?q=${q}`);
      expect([200, 400], q).toContain(json.statusCode);
      expect(Array.isArray(json.json<Suggestions>().hits), q).toBe(true);
    }
    const echoed = await visit(t.app, `${root}/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E`);
    expect(echoed.body).toContain('&lt;script>alert(1)&lt;/script>');
    // Words of hostile queries still find what they name, and marks stay the only markup.
    const script = await visit(t.app, `${root}/search?q=%3Cscript%3E`);
    expect(resultLinks(script.body)).toHaveLength(1);
    expect(script.body).toMatch(/<p class="search-excerpt">A <mark>script<\/mark> tag page\.<\/p>/);
  });

  it("answers on a project's own host too, a long query with the site's page", async () => {
    const w = await createPublicSite(t.deps);
    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    await t.deps.projects.update(ctx, { host: 'https://docs.example.test', basePath: '/help' });
    await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Hosted',
      slug: 'hosted',
      content: 'A heron.',
    });
    const host = { host: 'docs.example.test' };
    const found = await visit(t.app, '/help/search?q=heron', host);
    expect(found.statusCode).toBe(200);
    expect(resultLinks(found.body)).toEqual(['/help/v1/guides/hosted']);
    const json = await visit(t.app, '/help/search/results.json?q=heron', host);
    expect(json.json<Suggestions>().hits.map((hit) => hit.url)).toEqual(['/help/v1/guides/hosted']);
    const long = await visit(t.app, `/help/search?q=${'heron+'.repeat(2000)}`, host);
    expect(long.statusCode).toBe(400);
    expect(long.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(long.body).toContain('searches are at most 500');
    // Quire's own addresses keep the API's answer to a URL too long.
    const api = await visit(t.app, `/api/v1/search?query=${'heron+'.repeat(2000)}`, host);
    expect(api.statusCode).toBe(414);
    expect(api.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('limits the suggestions per client address, with Retry-After', async () => {
    const w = await createPublicSite(t.deps);
    const root = `/sites/${w.project.id}`;
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Limits' });
    const limit = Math.max(1, Math.floor(30 * t.config.rateLimitScale));
    // Windows are aligned on the epoch: start at the beginning of one.
    t.clock.set(Math.ceil(t.clock.now() / 10_000) * 10_000);
    for (let i = 0; i < limit; i++) await suggestions(t.app, root, 'limits', '198.51.100.7');
    const refused = await t.app.inject({
      method: 'GET',
      url: `${root}/search/results.json?q=limits`,
      remoteAddress: '198.51.100.7',
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.json<Suggestions>()).toEqual({ hits: [], error: expect.stringContaining('Too many') });
    // Another address is not held back; the results page is not limited; the next window admits again.
    expect((await suggestions(t.app, root, 'limits', '198.51.100.8')).hits).toHaveLength(1);
    await searchPage(t.app, root, 'limits');
    t.clock.advance(10_000);
    expect((await suggestions(t.app, root, 'limits', '198.51.100.7')).hits).toHaveLength(1);
  });

  it('gives suggestions as the site caches answers, at most eight', async () => {
    const w = await createPublicSite(t.deps);
    const root = `/sites/${w.project.id}`;
    for (let i = 1; i <= 10; i++) {
      await sitePage(t.app, w.key, w.documentation.id, { title: `Heron ${i}`, content: `Heron ${i}.` });
    }
    const res = await visit(t.app, `${root}/search/results.json?q=hero`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
    expect(res.headers.etag).toMatch(/^"/);
    expect(res.json<Suggestions>().hits).toHaveLength(8);
    const before = t.deps.search.cacheStats();
    const again = await visit(t.app, `${root}/search/results.json?q=hero`, {
      'if-none-match': String(res.headers.etag),
    });
    expect(again.statusCode).toBe(304);
    // The second answer came from the search service's kept answers, not from the site's.
    expect(t.deps.search.cacheStats().hits).toBe(before.hits + 1);
    expect((await visit(t.app, `${root}/search/results.json`)).json()).toEqual({ hits: [] });
  });
});
