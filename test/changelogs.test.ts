import { describe, expect, it } from 'vitest';
import type { Deps } from '../src/deps.ts';
import { adminContext, auditEntries, createKey, createVersion, createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

type Api = ReturnType<typeof client>;

interface Post {
  id: number;
  title: string;
  slug: string;
  published: boolean;
  content: string;
  created: string;
  updated: string;
}
interface PostList {
  posts: Post[];
  count: number;
  total: number;
  cursor: string | null;
}
interface SearchHit {
  title: string;
  sectionType: string;
  version: string | null;
  section: string;
  page: string;
  pageId: number | null;
  fragment: string;
  path: string;
}

const POST_FIELDS = ['id', 'title', 'slug', 'published', 'content', 'created', 'updated'];

function createChangelog(deps: Deps, projectId: number, input: { title?: string; slug?: string } = {}) {
  return adminContext(deps, { projectId }).then((ctx) =>
    deps.changelogs.create(ctx, { title: input.title ?? 'Release notes', ...input }),
  );
}

/** A post written over HTTP; fails the test unless it is created. */
async function writePost(
  api: Api,
  changelogId: number,
  body: { title: string; content?: string; slug?: string; published?: boolean },
): Promise<Post> {
  const res = await api.post(`/changelog/${changelogId}/post`, { content: 'Text.', ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Post>();
}

async function list(api: Api, changelogId: number, query = ''): Promise<PostList> {
  const res = await api.get(`/changelog/${changelogId}/post${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostList>();
}

async function searchHits(api: Api, params: Record<string, string>): Promise<SearchHit[]> {
  const res = await api.get(`/search?${new URLSearchParams(params).toString()}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ hits: SearchHit[] }>().hits;
}

describe('POST /changelog/{id}/post', () => {
  it('writes a post with a slug made from its title, unique in the changelog', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const api = client(t.app, w.key);

    const res = await api.post(`/changelog/${changelog.id}/post`, {
      title: 'Über release 2.0',
      content: '# Hello\n\nNew **things**.',
    });
    expect(res.statusCode).toBe(200);
    const first = res.json<Post>();
    expect(Object.keys(first)).toEqual(POST_FIELDS);
    expect(first).toEqual({
      id: expect.any(Number) as number,
      title: 'Über release 2.0',
      slug: 'uber-release-2-0',
      published: false,
      content: '# Hello\n\nNew **things**.',
      created: '2026-11-21T10:15:00+0000',
      updated: '2026-11-21T10:15:00+0000',
    });
    expect((await writePost(api, changelog.id, { title: 'Über release 2.0' })).slug).toBe(
      'uber-release-2-0-2',
    );
    expect((await writePost(api, changelog.id, { title: 'Über release 2.0' })).slug).toBe(
      'uber-release-2-0-3',
    );
    expect((await writePost(api, changelog.id, { title: '!!!', published: true })).slug).toBe('post');

    // Slugs are unique per changelog: another changelog has its own.
    const other = await createChangelog(t.deps, w.project.id, { title: 'Security notes' });
    expect((await writePost(api, other.id, { title: 'Über release 2.0' })).slug).toBe('uber-release-2-0');
  });

  it('answers 409 to a slug given that another post of the changelog holds', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const api = client(t.app, w.key);
    await writePost(api, changelog.id, { title: 'One', slug: 'launch' });
    const taken = await api.post(`/changelog/${changelog.id}/post`, {
      title: 'Two',
      content: 'x',
      slug: 'launch',
    });
    expect(taken.statusCode).toBe(409);
    expect(expectErrorShape(taken).message).toContain("'launch'");
    expect((await list(api, changelog.id)).total).toBe(1);
    // The refused post left no audit entry behind.
    const posts = (await auditEntries(t.deps, w.project.id)).filter((e) => e.entity === 'changelogPost');
    expect(posts).toHaveLength(1);
  });

  it('answers 400 to a blank title, a missing content, a bad slug or published, and malformed JSON', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const api = client(t.app, w.key);
    const url = `/changelog/${changelog.id}/post`;
    const cases: Array<[unknown, string]> = [
      [{ title: '   ', content: 'x' }, 'body.title'],
      [{ title: '', content: 'x' }, 'body.title'],
      [{ content: 'x' }, 'body.title'],
      [{ title: 'T' }, 'body.content'],
      [{ title: 'T', content: 'x', slug: 'Not A Slug' }, 'body.slug'],
      [{ title: 'T', content: 'x', published: 'yes' }, 'body.published'],
      [{ title: 'x'.repeat(256), content: 'x' }, 'body.title'],
    ];
    for (const [payload, field] of cases) {
      const res = await api.post(url, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(expectErrorShape(res).message).toContain(field);
    }
    const malformed = await api.post(url, '{"title":', { headers: { 'content-type': 'application/json' } });
    expect(malformed.statusCode).toBe(400);
    expectErrorShape(malformed);
    expect((await list(api, changelog.id)).total).toBe(0);
  });

  it('takes JSON bodies only: 415 for another content type', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const api = client(t.app, w.key);
    const url = `/changelog/${changelog.id}/post`;
    const text = await api.post(url, 'title=T', { headers: { 'content-type': 'text/plain' } });
    expect(text.statusCode).toBe(415);
    expect(expectErrorShape(text).message).toBe(
      "Unsupported content-type 'text/plain'. Supported content-type is 'application/json'.",
    );
    const form = await api.post(url, 'title=T&content=x', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.statusCode).toBe(415);
    const charset = await api.post(url, JSON.stringify({ title: 'T', content: 'x' }), {
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.statusCode).toBe(200);
  });

  it('needs changelog.edit to write and changelog.read to list', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const { key: reader } = await createKey(t.deps, w.project.id, { permissions: ['changelog.read'] });
    const { key: editor } = await createKey(t.deps, w.project.id, { permissions: ['changelog.edit'] });
    const url = `/changelog/${changelog.id}/post`;

    const refused = await client(t.app, reader).post(url, { title: 'T', content: 'x' });
    expect(refused.statusCode).toBe(403);
    expect(expectErrorShape(refused).message).toContain('changelog.edit');
    const written = await client(t.app, editor).post(url, { title: 'T', content: 'x' });
    expect(written.statusCode).toBe(200);

    const unlisted = await client(t.app, editor).get(url);
    expect(unlisted.statusCode).toBe(403);
    expect(expectErrorShape(unlisted).message).toContain('changelog.read');
    expect((await list(client(t.app, reader), changelog.id)).total).toBe(1);

    const { key: pages } = await createKey(t.deps, w.project.id, { permissions: ['page.edit', 'page.read'] });
    expect((await client(t.app, pages).post(url, { title: 'T', content: 'x' })).statusCode).toBe(403);
    expect((await client(t.app, pages).get(url)).statusCode).toBe(403);
    expect((await client(t.app).get(url)).statusCode).toBe(403);
  });

  it("answers 404 for another project's changelog, or none, and writes nothing", async () => {
    const w = await createWorld(t.deps);
    const theirs = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, theirs.project.id);
    const api = client(t.app, w.key);
    for (const id of [changelog.id, 999999]) {
      const write = await api.post(`/changelog/${id}/post`, { title: 'Sneaky', content: 'x' });
      expect(write.statusCode).toBe(404);
      expectErrorShape(write);
      const read = await api.get(`/changelog/${id}/post`);
      expect(read.statusCode).toBe(404);
      expectErrorShape(read);
    }
    expect((await list(client(t.app, theirs.key), changelog.id)).total).toBe(0);
  });

  it('sends the rate-limit headers of each operation', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const api = client(t.app, w.key);
    const url = `/changelog/${changelog.id}/post`;
    const written = await api.post(url, { title: 'T', content: 'x' });
    expect(written.headers['x-ratelimit-limit']).toBe('10800');
    expect(written.headers['x-ratelimit-remaining']).toBe('1');
    expect(written.headers['x-ratelimit-reset']).toEqual(expect.stringMatching(/^\d+$/));
    expect(written.headers['ratelimit-policy']).toBe('"createChangelogPost";q=10800;w=3600');
    const read = await api.get(url);
    expect(read.headers['x-ratelimit-limit']).toBe('600');
    expect(read.headers['x-ratelimit-remaining']).toBe('1');
    expect(read.headers['ratelimit-policy']).toBe('"listChangelogPosts";q=600;w=60');
    expect((await api.get(url)).headers['x-ratelimit-remaining']).toBe('2');
  });

  it('writes the audit entry in the same change', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const post = await writePost(client(t.app, w.key), changelog.id, {
      title: 'Launch day',
      published: true,
    });
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({
      scope: 'content',
      entity: 'changelogPost',
      entity_id: String(post.id),
      operation: 'INS',
      message: "Changelog post 'Launch day' created",
    });
    expect(JSON.parse(entry?.details ?? '{}')).toMatchObject({
      changelogId: changelog.id,
      slug: 'launch-day',
      published: true,
    });
    expect(entry?.api_key_label).toContain(String(w.keyId));
  });
});

describe('GET /changelog/{id}/post', () => {
  it('lists every post newest first, published or not, 10 by default and at most 50', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const api = client(t.app, w.key);
    for (let i = 1; i <= 12; i++) {
      await writePost(api, changelog.id, { title: `Post ${i}`, published: i % 2 === 0 });
      t.clock.advance(60_000);
    }
    const first = await list(api, changelog.id);
    expect(first.count).toBe(10);
    expect(first.total).toBe(12);
    expect(first.posts.map((p) => p.title)).toEqual(
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3].map((i) => `Post ${i}`),
    );
    expect(first.posts.map((p) => p.published).slice(0, 2)).toEqual([true, false]);
    expect(Object.keys(first.posts[0] ?? {})).toEqual(POST_FIELDS);
    expect(first.posts[0]?.created).toBe('2026-11-21T10:26:00+0000');
    expect(typeof first.cursor).toBe('string');
    const rest = await list(api, changelog.id, `?cursor=${first.cursor ?? ''}`);
    expect(rest).toMatchObject({ count: 2, total: 12, cursor: null });
    expect(rest.posts.map((p) => p.title)).toEqual(['Post 2', 'Post 1']);

    expect((await list(api, changelog.id, '?count=50')).count).toBe(12);
    for (const query of ['?count=51', '?count=0', '?count=-1', '?count=ten', '?format=pdf']) {
      const res = await api.get(`/changelog/${changelog.id}/post${query}`);
      expect(res.statusCode, query).toBe(400);
      expectErrorShape(res);
    }
    const empty = await createChangelog(t.deps, w.project.id, { title: 'Empty' });
    expect(await list(api, empty.id)).toEqual({ posts: [], count: 0, total: 0, cursor: null });
  });

  it('answers 400 to a cursor it did not give, or gave for another changelog', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const other = await createChangelog(t.deps, w.project.id, { title: 'Other' });
    const api = client(t.app, w.key);
    for (let i = 0; i < 3; i++) await writePost(api, other.id, { title: `Other ${i}` });
    await writePost(api, changelog.id, { title: 'Mine' });
    const othersCursor = (await list(api, other.id, '?count=1')).cursor ?? '';
    const forged = Buffer.from('before:99999999999').toString('base64url');
    for (const cursor of ['nonsense', '', forged, othersCursor, '%00']) {
      const res = await api.get(`/changelog/${changelog.id}/post?cursor=${cursor}`);
      expect(res.statusCode, cursor).toBe(400);
      expect(expectErrorShape(res).message).toContain('cursor');
    }
  });

  it('walks every post exactly once while posts are written between pages, equal dates included', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const api = client(t.app, w.key);
    const written: number[] = [];
    // Groups of posts written in the same millisecond, then time moves on.
    for (let group = 0; group < 4; group++) {
      for (let i = 0; i < 3; i++) {
        written.push((await writePost(api, changelog.id, { title: `Old ${group}.${i}` })).id);
      }
      t.clock.advance(1_000);
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const answer: PostList = await list(api, changelog.id, `?count=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...answer.posts.map((p) => p.id));
      cursor = answer.cursor;
      // Newer posts arrive between pages: some at the same date as the newest, some later.
      written.push((await writePost(api, changelog.id, { title: `New ${pages}` })).id);
      if (pages % 2 === 1) t.clock.advance(500);
      pages++;
    } while (cursor !== null && pages < 50);
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    // Every post that existed when the walk began, newest first; none written during it.
    expect(seen).toEqual([...written.slice(0, 12)].reverse());
    const all = await list(api, changelog.id, '?count=50');
    expect(all.total).toBe(written.length);
    expect(all.posts.map((p) => p.id).sort((a, b) => a - b)).toEqual([...written].sort((a, b) => a - b));
  });

  it('reads contents as Darkdown by default, or as sanitised HTML, Markdown or text', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const api = client(t.app, w.key);
    const source = [
      '# Big news',
      '',
      'Hello <script>alert(1)</script> **world** [click](javascript:alert(1))',
      '',
      '<img src="x" onerror="alert(1)">',
      '',
      '## Details',
      '',
      'More text.',
    ].join('\n');
    await writePost(api, changelog.id, { title: 'News', content: source });

    const contentIn = async (format: string) =>
      (await list(api, changelog.id, format === '' ? '' : `?format=${format}`)).posts[0]?.content ?? '';
    expect(await contentIn('')).toBe(source);
    expect(await contentIn('darkdown')).toBe(source);
    const html = await contentIn('html');
    expect(html).toContain('<h1 id="big-news">Big news</h1>');
    expect(html).toContain('<strong>world</strong>');
    expect(html).toContain('<h2 id="details">Details</h2>');
    expect(html).not.toMatch(/<script|onerror|href="javascript:/i);
    const markdown = await contentIn('markdown');
    expect(markdown).toContain('# Big news');
    expect(markdown).toContain('**world**');
    expect(markdown).not.toMatch(/<script|onerror/i);
    const text = await contentIn('text');
    expect(text).toContain('Big news');
    expect(text).toContain('More text.');
    expect(text).not.toMatch(/[<*#]/);
  });

  it('renders large posts in worker threads into the same answer', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const api = client(t.app, w.key);
    const paragraph = 'A *long* paragraph about the release, with "quotes" and émojis 🎉.\n\n';
    const large = `# Large\n\n${paragraph.repeat(1_200)}`;
    expect(large.length).toBeGreaterThan(64 * 1024);
    await writePost(api, changelog.id, { title: 'Small', content: 'Small *one*' });
    await writePost(api, changelog.id, { title: 'Large', content: large });

    const darkdown = await list(api, changelog.id);
    expect(darkdown.posts.map((p) => p.content)).toEqual([large, 'Small *one*']);
    const html = await list(api, changelog.id, '?format=html');
    expect(html.posts[0]?.content.startsWith('<h1 id="large">Large</h1>')).toBe(true);
    expect(html.posts[0]?.content).toContain('<em>long</em> paragraph');
    expect(html.posts[0]?.content).toContain('émojis 🎉');
    expect(html.posts[1]?.content).toBe('<p>Small <em>one</em></p>\n');
    expect(html).toMatchObject({ count: 2, total: 2, cursor: null });
  });
});

describe('searching changelog posts', () => {
  it('finds published posts, one hit per H2 section, and never unpublished ones', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id, {
      title: 'Release notes',
      slug: 'releases',
    });
    const api = client(t.app, w.key);
    const post = await writePost(api, changelog.id, {
      title: 'Quasar launch',
      content: 'We launched quasar mode.\n\n## Upgrading\n\nRun the quasar migration first.',
      published: true,
    });
    await writePost(api, changelog.id, {
      title: 'Quasar secrets',
      content: 'Unannounced quasar plans.',
      published: false,
    });

    const hits = await searchHits(api, { query: 'quasar' });
    expect(hits.map((h) => h.title).sort()).toEqual(['Quasar launch', 'Upgrading']);
    const upgrading = hits.find((h) => h.title === 'Upgrading');
    expect(upgrading).toMatchObject({
      sectionType: 'changelog',
      version: null,
      section: 'releases',
      page: post.slug,
      pageId: null,
      fragment: 'upgrading',
      path: `/changelog/releases/${post.slug}#upgrading`,
    });
    expect(hits.find((h) => h.title === 'Quasar launch')?.path).toBe(`/changelog/releases/${post.slug}`);
    expect(await searchHits(api, { query: 'unannounced' })).toEqual([]);
  });

  it('leaves posts out when a version or a section is named, and finds them with a version-limited key', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id);
    const api = client(t.app, w.key);
    await writePost(api, changelog.id, { title: 'Zephyr arrives', content: 'Zephyr text.', published: true });
    const page = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Zephyr guide',
      content: 'About zephyr.',
    });
    expect((await api.put(`/page/${page.json<{ id: number }>().id}/publish`)).statusCode).toBe(200);

    const types = (hits: SearchHit[]) => hits.map((h) => `${h.sectionType}:${h.title}`).sort();
    expect(types(await searchHits(api, { query: 'zephyr' }))).toEqual([
      'changelog:Zephyr arrives',
      'doc:Zephyr guide',
    ]);
    expect(types(await searchHits(api, { query: 'zephyr', version_slug: 'v1' }))).toEqual([
      'doc:Zephyr guide',
    ]);
    expect(types(await searchHits(api, { query: 'zephyr', version_slug: 'latest' }))).toEqual([
      'doc:Zephyr guide',
    ]);
    expect(types(await searchHits(api, { query: 'zephyr', documentation_slug: 'guides' }))).toEqual([
      'doc:Zephyr guide',
    ]);

    // Posts belong to the project, not to a version: a key limited to another version finds them.
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2', published: true });
    const { key: limited } = await createKey(t.deps, w.project.id, {
      permissions: ['search.read'],
      versions: [v2.id],
    });
    expect(types(await searchHits(client(t.app, limited), { query: 'zephyr' }))).toEqual([
      'changelog:Zephyr arrives',
    ]);

    // Another project's posts are never found.
    const theirs = await createWorld(t.deps);
    expect(await searchHits(client(t.app, theirs.key), { query: 'zephyr' })).toEqual([]);
  });

  it('keeps published posts when the index is derived again', async () => {
    const w = await createWorld(t.deps);
    const changelog = await createChangelog(t.deps, w.project.id, { slug: 'news' });
    const api = client(t.app, w.key);
    await writePost(api, changelog.id, { title: 'Nebula shipped', content: 'Nebula.', published: true });
    await writePost(api, changelog.id, { title: 'Nebula draft', content: 'Nebula.', published: false });
    const { projects } = await t.deps.search.reindex(w.project.id);
    expect(projects).toEqual([{ id: w.project.id, entries: 1 }]);
    const hits = await searchHits(api, { query: 'nebula' });
    expect(hits.map((h) => [h.title, h.sectionType, h.path])).toEqual([
      ['Nebula shipped', 'changelog', '/changelog/news/nebula-shipped'],
    ]);
  });
});
