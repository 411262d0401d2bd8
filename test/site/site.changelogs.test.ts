import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { adminContext } from '../helpers/factories.ts';
import { client, useTestApp } from '../helpers/test-app.ts';
import { createPublicSite, visit } from './site-helpers.ts';
import { childrenNamed, parseXml, textOf, type XmlNode } from './xml-check.ts';

const t = useTestApp();

async function createChangelog(deps: Deps, projectId: number, slug = 'notes', title = 'Release notes') {
  const ctx = await adminContext(deps, { projectId });
  return deps.changelogs.create(ctx, { title, slug });
}

/** A post written over the API, a minute after the previous one; its slug. */
async function writePost(
  key: string,
  changelogId: number,
  body: { title: string; content?: string; slug?: string; published?: boolean },
): Promise<string> {
  t.clock.advance(60_000);
  const res = await client(t.app, key).post(`/changelog/${changelogId}/post`, {
    content: `${body.title} is out.\n\n## Changes\n\nThings changed.`,
    published: true,
    ...body,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ slug: string }>().slug;
}

/** A public site with a changelog `notes`. */
async function siteWithChangelog() {
  const w = await createPublicSite(t.deps);
  const changelog = await createChangelog(t.deps, w.project.id);
  return { ...w, changelog, root: `/sites/${w.project.id}` };
}

const entries = (feed: XmlNode) => childrenNamed(feed, 'entry');
const ids = (html: string) => [...html.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]);

describe('the reader site: changelogs', () => {
  it('lists published posts newest first, and never an unpublished one anywhere', async () => {
    const w = await siteWithChangelog();
    await writePost(w.key, w.changelog.id, { title: 'First release', slug: 'first' });
    await writePost(w.key, w.changelog.id, { title: 'Secret plans', slug: 'secret', published: false });
    await writePost(w.key, w.changelog.id, { title: 'Second release', slug: 'second' });

    const list = await visit(t.app, `${w.root}/changelog/notes`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(list.body).toContain('<h1>Release notes</h1>');
    expect(list.body).toContain(`<a href="${w.root}/changelog/notes/second">Second release</a>`);
    expect(list.body).toContain(`<a href="${w.root}/changelog/notes/first">First release</a>`);
    expect(list.body.indexOf('Second release')).toBeLessThan(list.body.indexOf('First release'));
    expect(list.body).toContain('<time datetime="2026-11-21T10:16:00.000Z">2026-11-21</time>');
    expect(list.body).toContain('Second release is out.');
    expect(list.body).not.toContain('Secret');
    // The head announces the feed; the canonical address is absolute.
    expect(list.body).toContain(
      `<link rel="alternate" type="application/atom+xml" title="Release notes (Atom feed)" href="${w.root}/changelog/notes/feed.xml"/>`,
    );
    expect(list.body).toMatch(/<link rel="canonical" href="http:\/\/[^"]+\/sites\/\d+\/changelog\/notes"\/>/);

    const post = await visit(t.app, `${w.root}/changelog/notes/first`);
    expect(post.statusCode, post.body).toBe(200);
    expect(post.body).toContain('<h1>First release</h1>');
    expect(post.body).toContain('<h2 id="changes">Changes</h2>');
    expect(post.body).toContain('<meta name="description" content="First release is out."/>');

    const secret = await visit(t.app, `${w.root}/changelog/notes/secret`);
    expect(secret.statusCode).toBe(404);
    expect(secret.body).toContain('<h1>Page not found</h1>');
    expect(secret.body).not.toContain('Secret');

    const feed = await visit(t.app, `${w.root}/changelog/notes/feed.xml`);
    expect(feed.statusCode).toBe(200);
    expect(feed.body).not.toContain('Secret');
    expect(entries(parseXml(feed.body)).map((entry) => textOf(entry, 'title'))).toEqual([
      'Second release',
      'First release',
    ]);
  });

  it('answers the site’s 404 for an unknown changelog, one without published posts, and unknown posts', async () => {
    const w = await siteWithChangelog();
    const drafts = await createChangelog(t.deps, w.project.id, 'drafts', 'Drafts');
    await writePost(w.key, drafts.id, { title: 'Not yet', published: false });
    await writePost(w.key, w.changelog.id, { title: 'Out', slug: 'out' });
    for (const path of [
      '/changelog/nothing',
      '/changelog/nothing/feed.xml',
      '/changelog/nothing/out',
      '/changelog/drafts',
      '/changelog/drafts/feed.xml',
      '/changelog/drafts/not-yet',
      '/changelog/notes/missing',
      '/changelog/notes/out/more',
    ]) {
      const res = await visit(t.app, `${w.root}${path}`);
      expect(res.statusCode, path).toBe(404);
      expect(res.headers['content-type'], path).toBe('text/html; charset=utf-8');
      expect(res.body, path).toContain('<h1>Page not found</h1>');
    }
    // Another project's changelog is not this project's.
    const other = await createPublicSite(t.deps);
    expect((await visit(t.app, `/sites/${other.project.id}/changelog/notes`)).statusCode).toBe(404);
    expect((await visit(t.app, `/sites/${other.project.id}/changelog/notes/out`)).statusCode).toBe(404);
  });

  it('pages the list twenty posts at a time, with links both ways; other pages are 404', async () => {
    const w = await siteWithChangelog();
    for (let i = 1; i <= 45; i++) {
      await writePost(w.key, w.changelog.id, { title: `Release ${i}`, slug: `release-${i}` });
    }
    const titles = (html: string) =>
      [...html.matchAll(/<h2><a href="[^"]*">(Release \d+)<\/a><\/h2>/g)].map((m) => m[1]);

    const first = await visit(t.app, `${w.root}/changelog/notes`);
    expect(titles(first.body)).toEqual(Array.from({ length: 20 }, (_, i) => `Release ${45 - i}`));
    expect(first.body).toContain(`href="${w.root}/changelog/notes?page=2" rel="next"`);
    expect(first.body).not.toContain('rel="prev"');

    // Kept answers are kept apart by page: the second page is not the first one kept before it.
    const second = await visit(t.app, `${w.root}/changelog/notes?page=2`);
    expect(second.statusCode).toBe(200);
    expect(titles(second.body)).toEqual(Array.from({ length: 20 }, (_, i) => `Release ${25 - i}`));
    expect(second.body).toContain('<h1>Release notes, page 2 of 3</h1>');
    expect(second.body).toContain(`href="${w.root}/changelog/notes" rel="prev"`);
    expect(second.body).toContain(`href="${w.root}/changelog/notes?page=3" rel="next"`);
    expect(second.body).toMatch(/<link rel="canonical" href="[^"]+\/changelog\/notes\?page=2"\/>/);

    const third = await visit(t.app, `${w.root}/changelog/notes?page=3&utm_source=x`);
    expect(titles(third.body)).toEqual(['Release 5', 'Release 4', 'Release 3', 'Release 2', 'Release 1']);
    expect(third.body).not.toContain('rel="next"');

    expect(titles((await visit(t.app, `${w.root}/changelog/notes?page=1`)).body)).toEqual(titles(first.body));
    for (const query of [
      'page=4',
      'page=0',
      'page=-1',
      'page=abc',
      'page=1.5',
      'page=',
      'page=2&page=3',
      'page=99999999999',
    ]) {
      const res = await visit(t.app, `${w.root}/changelog/notes?${query}`);
      expect(res.statusCode, query).toBe(404);
      expect(res.body, query).toContain('<h1>Page not found</h1>');
    }
    // A malformed page kept as a 404 does not hide the pages that exist.
    expect(titles((await visit(t.app, `${w.root}/changelog/notes?page=2`)).body)).toEqual(
      titles(second.body),
    );
  });

  it('gives headings the anchors search names: one post alone, and unique ones on the list', async () => {
    const w = await siteWithChangelog();
    const content =
      'Intro about zebras.\n\n## Zebra stripes\n\nZebra text.\n\n## Zebra stripes\n\nMore zebra[^1].\n\n[^1]: A note.';
    await writePost(w.key, w.changelog.id, { title: 'Zebras one', slug: 'one', content });
    await writePost(w.key, w.changelog.id, { title: 'Zebras two', slug: 'two', content });

    const res = await client(t.app, w.key).get('/search?query=zebra');
    expect(res.statusCode, res.body).toBe(200);
    const paths = res
      .json<{ hits: Array<{ path: string; sectionType: string }> }>()
      .hits.filter((hit) => hit.sectionType === 'changelog')
      .map((hit) => hit.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/changelog/notes/one#zebra-stripes',
        '/changelog/notes/one#zebra-stripes-2',
        '/changelog/notes/two#zebra-stripes',
      ]),
    );
    for (const path of paths) {
      const [address, fragment] = path.split('#');
      const page = await visit(t.app, `${w.root}${address}`);
      expect(page.statusCode, path).toBe(200);
      if (fragment !== undefined) expect(ids(page.body), path).toContain(fragment);
    }

    // On the list both posts show; no id is given twice, and links within a post follow its ids.
    const list = await visit(t.app, `${w.root}/changelog/notes`);
    const all = ids(list.body);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(expect.arrayContaining(['one--zebra-stripes', 'two--zebra-stripes-2', 'two--fn1']));
    expect(list.body).toContain('href="#two--fn1"');
    expect(list.body).toContain('<p>Intro about zebras.</p>');
  });

  it('serves a well-formed Atom feed with escaped titles and contents and stable ids', async () => {
    const w = await siteWithChangelog();
    const nasty = `Fix <script>alert("x")</script> & 'quotes' ]]>`;
    await writePost(w.key, w.changelog.id, { title: 'Plain', slug: 'plain', content: 'Plain **text**.' });
    await writePost(w.key, w.changelog.id, {
      title: nasty,
      slug: 'nasty',
      content: 'Uses `<b>` & "quotes" <em>inline</em>\n\n## A heading',
    });

    const res = await visit(t.app, `${w.root}/changelog/notes/feed.xml`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    expect(res.headers.etag).toBeDefined();
    expect(res.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
    const feed = parseXml(res.body);
    expect(feed.name).toBe('feed');
    expect(feed.attributes.xmlns).toBe('http://www.w3.org/2005/Atom');
    expect(textOf(feed, 'title')).toMatch(/^Release notes \| /);
    expect(textOf(feed, 'updated')).toBe('2026-11-21T10:17:00.000Z');
    expect(textOf(childrenNamed(feed, 'author')[0] ?? feed, 'name')).toBe(w.project.name);
    const links = childrenNamed(feed, 'link').map((link) => link.attributes);
    expect(links).toEqual([
      {
        rel: 'self',
        type: 'application/atom+xml',
        href: expect.stringMatching(/^http:\/\/.+\/changelog\/notes\/feed\.xml$/) as string,
      },
      {
        rel: 'alternate',
        type: 'text/html',
        href: expect.stringMatching(/^http:\/\/.+\/changelog\/notes$/) as string,
      },
    ]);

    const [first, second] = entries(feed);
    if (!first || !second) throw new Error('two entries expected');
    expect(textOf(first, 'title')).toBe(nasty);
    expect(textOf(first, 'published')).toBe('2026-11-21T10:17:00.000Z');
    expect(textOf(first, 'updated')).toBe('2026-11-21T10:17:00.000Z');
    expect(childrenNamed(first, 'link')[0]?.attributes.href).toMatch(
      /^http:\/\/.+\/changelog\/notes\/nasty$/,
    );
    expect(childrenNamed(first, 'content')[0]?.attributes.type).toBe('html');
    // The contents are the post page's HTML, as text.
    const html = textOf(first, 'content') ?? '';
    expect(html).toContain('<code>&lt;b&gt;</code>');
    expect(html).toContain('<em>inline</em>');
    expect(html).toContain('<h2 id="a-heading">A heading</h2>');
    const page = await visit(t.app, `${w.root}/changelog/notes/nasty`);
    expect(page.body).toContain(html);
    expect(textOf(second, 'content')).toBe('<p>Plain <strong>text</strong>.</p>\n');
    expect(page.body).toContain(
      `<h1>Fix &lt;script>alert(&quot;x&quot;)&lt;/script> &amp; 'quotes' ]]></h1>`,
    );

    // Ids name the posts, not the address the feed was read at: the same on the project's host.
    const feedIds = [textOf(feed, 'id'), ...entries(feed).map((entry) => textOf(entry, 'id'))];
    for (const id of feedIds)
      expect(id).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(feedIds).size).toBe(3);
    const other = await t.app.inject({
      method: 'GET',
      url: `${w.root}/changelog/notes/feed.xml`,
      headers: { host: 'elsewhere.example:8080' },
    });
    const again = parseXml(other.body);
    expect(childrenNamed(again, 'link')[0]?.attributes.href).toBe(
      'http://elsewhere.example:8080' + `${w.root}/changelog/notes/feed.xml`,
    );
    expect([textOf(again, 'id'), ...entries(again).map((entry) => textOf(entry, 'id'))]).toEqual(feedIds);
  });

  it('shows a change at the very next request: a new post in the list, its page and the feed', async () => {
    const w = await siteWithChangelog();
    await writePost(w.key, w.changelog.id, { title: 'Old news', slug: 'old' });
    const before = await visit(t.app, `${w.root}/changelog/notes`);
    const feedBefore = await visit(t.app, `${w.root}/changelog/notes/feed.xml`);
    expect((await visit(t.app, `${w.root}/changelog/notes/fresh`)).statusCode).toBe(404);
    // Kept: the same answer again.
    const kept = await visit(t.app, `${w.root}/changelog/notes`, {
      'if-none-match': String(before.headers.etag),
    });
    expect(kept.statusCode).toBe(304);

    await writePost(w.key, w.changelog.id, { title: 'Fresh news', slug: 'fresh' });
    const after = await visit(t.app, `${w.root}/changelog/notes`, {
      'if-none-match': String(before.headers.etag),
    });
    expect(after.statusCode).toBe(200);
    expect(after.body).toContain('Fresh news');
    expect((await visit(t.app, `${w.root}/changelog/notes/fresh`)).statusCode).toBe(200);
    const feedAfter = await visit(t.app, `${w.root}/changelog/notes/feed.xml`);
    expect(feedAfter.headers.etag).not.toBe(feedBefore.headers.etag);
    expect(entries(parseXml(feedAfter.body)).map((entry) => textOf(entry, 'title'))).toEqual([
      'Fresh news',
      'Old news',
    ]);
    // A changelog's first published post brings it onto the site.
    const later = await createChangelog(t.deps, w.project.id, 'later', 'Later');
    expect((await visit(t.app, `${w.root}/changelog/later`)).statusCode).toBe(404);
    await writePost(w.key, later.id, { title: 'Now', slug: 'now' });
    expect((await visit(t.app, `${w.root}/changelog/later`)).statusCode).toBe(200);
  });
});
