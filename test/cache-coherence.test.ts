import { afterEach, describe, expect, it } from 'vitest';
import { createDocumentation, createKey, createVersion, createWorld } from './helpers/factories.ts';
import { buildTestApp, client, dialectName, type TestApp } from './helpers/test-app.ts';

// Two instances over one database (one SQLite file, or one PostgreSQL schema): A caches page answers,
// B changes what they hold, and A's very next read, with no pause, must answer the new state.
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.reverse()) await app.close();
  apps.length = 0;
});

interface PageAnswer {
  id: number;
  title: string;
  slug: string;
  path: string;
  contentDraft: string | null;
  contentPublished: string | null;
}

async function twoInstances() {
  // Reads in a loop would meet the rate limits otherwise.
  const env = { RATE_LIMIT_SCALE: '1000' };
  const a = await buildTestApp({ env });
  apps.push(a);
  const b = await buildTestApp({ env, sharedWith: a });
  apps.push(b);
  const w = await createWorld(a.deps);
  const reference = await createDocumentation(a.deps, w.version.id, {
    title: 'Reference',
    slug: 'reference',
  });
  const onA = client(a.app, w.key);
  const onB = client(b.app, w.key);
  const create = async (documentationId: number, title: string, content: string) => {
    const res = await onB.post(`/documentation/${documentationId}/page`, { title, content });
    expect(res.statusCode).toBe(200);
    return res.json<PageAnswer>();
  };
  const target = await create(reference.id, 'Authentication', 'Keys.');
  const page = await create(
    w.documentation.id,
    'Linker',
    'Hello %name%, read [auto$](/reference/authentication).',
  );
  const hits = () => a.deps.pages.responseCacheStats().hits;
  /** Reads the page on A twice: the second read must come from A's cache. */
  const cachedOnA = async (path: string) => {
    const first = await onA.get(path);
    expect(first.statusCode).toBe(200);
    const before = hits();
    const second = await onA.get(path);
    expect(second.body).toBe(first.body);
    expect(hits()).toBe(before + 1);
    return second.json<PageAnswer>();
  };
  return { a, b, w, reference, onA, onB, target, page, cachedOnA };
}

const ok = (res: { statusCode: number; body: string }) => {
  expect(res.statusCode, res.body).toBe(200);
  return res;
};

describe(`page answers cached on one instance, changed through another (${dialectName})`, () => {
  it('serves every change to what the answer holds on the very next read', async () => {
    const { b, w, onA, onB, target, page, cachedOnA } = await twoInstances();
    const html = `/page/${page.id}?format=html`;

    expect((await cachedOnA(html)).title).toBe('Linker');
    ok(await onB.put(`/page/${page.id}`, { title: 'Linker renamed', slug: page.slug }));
    expect((await onA.get(html)).json<PageAnswer>().title).toBe('Linker renamed');

    await cachedOnA(html);
    ok(await onB.put(`/page/${page.id}`, { content: 'Second words, [auto$](/reference/authentication).' }));
    expect((await onA.get(html)).json<PageAnswer>().contentDraft).toContain('Second words');

    expect((await cachedOnA(html)).contentPublished).toBeNull();
    ok(await onB.put(`/page/${page.id}/publish`));
    expect((await onA.get(html)).json<PageAnswer>().contentPublished).toContain('Second words');

    // The title of the page an [auto$] link names is part of the answer.
    expect((await cachedOnA(html)).contentPublished).toContain('>Authentication</a>');
    ok(await onB.put(`/page/${target.id}`, { title: 'Signing in', slug: target.slug }));
    expect((await onA.get(html)).json<PageAnswer>().contentPublished).toContain('>Signing in</a>');

    // Variables have no API: they are set in the database, by B's connection here.
    ok(await onB.put(`/page/${page.id}`, { content: 'Hello %name%.' }));
    expect((await cachedOnA(html)).contentDraft).toBe('<p>Hello %name%.</p>\n');
    await b.deps.database.db
      .updateTable('projects')
      .set({ variables: JSON.stringify({ name: 'Ada' }) })
      .where('id', '=', w.project.id)
      .execute();
    expect((await onA.get(html)).json<PageAnswer>().contentDraft).toBe('<p>Hello Ada.</p>\n');

    // Version and section slugs are in the page's path.
    expect((await cachedOnA(html)).path).toBe(`v1/guides/${page.slug}`);
    ok(await onB.put(`/version/${w.version.id}`, { slug: 'v2' }));
    expect((await onA.get(html)).json<PageAnswer>().path).toBe(`v2/guides/${page.slug}`);
    await cachedOnA(html);
    ok(await onB.put(`/documentation/${w.documentation.id}`, { slug: 'manual' }));
    expect((await onA.get(html)).json<PageAnswer>().path).toBe(`v2/manual/${page.slug}`);

    await cachedOnA(html);
    ok(await onB.delete(`/page/${page.id}`));
    expect((await onA.get(html)).statusCode).toBe(404);
    ok(await onB.post(`/page/${page.id}/restore`, {}));
    expect((await onA.get(html)).json<PageAnswer>().title).toBe('Linker renamed');

    // A deleted link target leaves the link without its title.
    await cachedOnA(html);
    ok(await onB.put(`/page/${page.id}`, { content: 'See [auto$](/reference/authentication).' }));
    expect((await cachedOnA(html)).contentDraft).toContain('>Signing in</a>');
    ok(await onB.delete(`/page/${target.id}`));
    expect((await onA.get(html)).json<PageAnswer>().contentDraft).not.toContain('Signing in');
  });

  it('serves reads by slugs from the cache, and follows renamed slugs and scopes', async () => {
    const { a, w, onA, onB, page, cachedOnA } = await twoInstances();
    const bySlugs = (version: string, section: string, slug: string) =>
      `/page?version_slug=${version}&documentation_slug=${section}&page_slug=${slug}&format=html`;

    const cached = await cachedOnA(bySlugs('v1', 'guides', page.slug));
    expect(cached.id).toBe(page.id);
    // The same answer as by id, from the same entry.
    expect((await onA.get(`/page/${page.id}?format=html`)).body).toBe(JSON.stringify(cached));

    ok(await onB.put(`/page/${page.id}`, { slug: 'renamed' }));
    expect((await onA.get(bySlugs('v1', 'guides', page.slug))).statusCode).toBe(404);
    expect((await onA.get(bySlugs('v1', 'guides', 'renamed'))).json<PageAnswer>().slug).toBe('renamed');

    await cachedOnA(bySlugs('v1', 'guides', 'renamed'));
    ok(await onB.put(`/version/${w.version.id}`, { slug: 'next' }));
    expect((await onA.get(bySlugs('v1', 'guides', 'renamed'))).statusCode).toBe(404);
    expect((await onA.get(bySlugs('next', 'guides', 'renamed'))).json<PageAnswer>().path).toBe(
      'next/guides/renamed',
    );

    // A key scoped to another version gets no cached answer of this one, by slugs or by id.
    await cachedOnA(bySlugs('next', 'guides', 'renamed'));
    const other = await createVersion(a.deps, w.project.id, { name: 'Other', slug: 'other' });
    const scoped = client(a.app, (await createKey(a.deps, w.project.id, { versions: [other.id] })).key);
    expect((await scoped.get(bySlugs('next', 'guides', 'renamed'))).statusCode).toBe(403);
    expect((await scoped.get(`/page/${page.id}?format=html`)).statusCode).toBe(403);
    // And a key of another project gets a 404 for the same slugs and id.
    const stranger = await createWorld(a.deps);
    const foreign = client(a.app, stranger.key);
    expect((await foreign.get(bySlugs('next', 'guides', 'renamed'))).statusCode).toBe(404);
    expect((await foreign.get(`/page/${page.id}?format=html`)).statusCode).toBe(404);
  });

  it('never answers a read that started after a write was acknowledged with what it replaced', async () => {
    const { onA, onB, page } = await twoInstances();
    const path = `/page/${page.id}?format=html`;
    ok(await onA.get(path));
    // `acknowledged`: the last title B has confirmed; every read on A notes it when it starts.
    let acknowledged = 0;
    let writing = true;
    const stale: string[] = [];
    let reads = 0;
    const reader = async () => {
      while (writing && stale.length < 10) {
        const floor = acknowledged;
        const res = await onA.get(path);
        expect(res.statusCode).toBe(200);
        reads += 1;
        const seen = Number(/^Title (\d+)$/.exec(res.json<PageAnswer>().title)?.[1] ?? 0);
        if (seen < floor) stale.push(`read started after title ${floor} was acknowledged saw ${seen}`);
        // A cached read may finish in microtasks alone: give the writer's I/O its turn, as a socket would.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const writer = async () => {
      try {
        for (let i = 1; i <= 25; i++) {
          ok(await onB.put(`/page/${page.id}`, { title: `Title ${i}` }));
          acknowledged = i;
          // Let reads run against the new state before the next write.
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      } finally {
        writing = false;
      }
    };
    await Promise.all([writer(), reader(), reader(), reader(), reader()]);
    expect(stale).toEqual([]);
    expect(reads).toBeGreaterThan(25);
    expect((await onA.get(path)).json<PageAnswer>().title).toBe('Title 25');
  });

  it('answers every write on one instance to the very next read on the other, 1,000 times', async () => {
    const { a, b, w, page } = await twoInstances();
    const path = `/page/${page.id}?format=html`;
    const on = [client(a.app, w.key), client(b.app, w.key)];
    const titleOf = (res: { statusCode: number; body: string }) =>
      (JSON.parse(ok(res).body) as PageAnswer).title;
    const hits = () => a.deps.pages.responseCacheStats().hits + b.deps.pages.responseCacheStats().hits;
    const hitsBefore = hits();
    // Readers on both instances keep the answer cached and their stamp reads under way, so that the
    // read after each write often arrives while a stamp read it must not share is running.
    let written = 0;
    let writing = true;
    const stale: string[] = [];
    const background = async (api: (typeof on)[number]) => {
      while (writing && stale.length < 10) {
        const floor = written;
        const seen = Number(/^Title (\d+)$/.exec(titleOf(await api.get(path)))?.[1] ?? 0);
        if (seen < floor) stale.push(`a read started after write ${floor} was answered saw ${seen}`);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const tries = async () => {
      try {
        for (let i = 1; i <= 1000 && stale.length < 10; i++) {
          // Writes alternate between the instances; each is read at once on the other one.
          const writer = on[i % 2]!;
          const reader = on[(i + 1) % 2]!;
          ok(await writer.put(`/page/${page.id}`, { title: `Title ${i}` }));
          written = i;
          const seen = titleOf(await reader.get(path));
          if (seen !== `Title ${i}`) stale.push(`try ${i}: the read after the write saw '${seen}'`);
          // Read again on both: the answer the next write replaces is then a cached one on each side.
          for (const api of on) {
            const again = titleOf(await api.get(path));
            if (again !== `Title ${i}`) stale.push(`try ${i}: a later read saw '${again}'`);
          }
        }
      } finally {
        writing = false;
      }
    };
    await Promise.all([
      tries(),
      background(on[0]!),
      background(on[1]!),
      background(on[0]!),
      background(on[1]!),
    ]);
    expect(stale).toEqual([]);
    expect(written).toBe(1000);
    // The reads were answered from the caches, not around them.
    expect(hits() - hitsBefore).toBeGreaterThanOrEqual(1000);
  }, 120_000);
});
