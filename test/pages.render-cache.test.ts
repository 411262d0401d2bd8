import type { Transaction } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../src/db/schema.ts';
import { PageQueries } from '../src/modules/pages/pages.reads.repository.ts';
import { LruCache } from '../src/shared/lru-cache.ts';
import { createDocumentation, createWorld } from './helpers/factories.ts';
import { loadConfig } from '../src/config.ts';
import { buildTestApp, client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

async function world() {
  const w = await createWorld(t.deps);
  const api = client(t.app, w.key);
  const reference = await createDocumentation(t.deps, w.version.id, {
    title: 'Reference',
    slug: 'reference',
  });
  const create = async (documentationId: number, title: string, content: string) => {
    const res = await api.post(`/documentation/${documentationId}/page`, { title, content });
    expect(res.statusCode).toBe(200);
    return res.json<{ id: number; slug: string }>();
  };
  const target = await create(reference.id, 'Authentication', 'Keys.');
  const page = await create(w.documentation.id, 'Linker', 'Read [auto$](/reference/authentication) first.');
  const html = async (id: number) => {
    const res = await api.get(`/page/${id}?format=html`);
    expect(res.statusCode).toBe(200);
    return res.json<{ contentDraft: string | null; contentPublished: string | null }>();
  };
  return { ...w, api, reference, target, page, create, html };
}

const renders = () => t.deps.pages.renderStats().renders;

describe('rendered contents cache', () => {
  it('renders a page once, then serves repeated reads without rendering', async () => {
    const w = await world();
    const before = renders();
    const first = await w.html(w.page.id);
    expect(first.contentDraft).toContain('>Authentication</a>');
    expect(renders()).toBe(before + 1);
    for (let i = 0; i < 5; i++) expect(await w.html(w.page.id)).toEqual(first);
    expect(renders()).toBe(before + 1);

    await w.api.get(`/page/${w.page.id}?format=markdown`);
    await w.api.get(`/page/${w.page.id}?format=markdown`);
    expect(renders()).toBe(before + 2);
  });

  it('shows a renamed target page under its new title on the next read, then caches that', async () => {
    const w = await world();
    await w.html(w.page.id);
    const before = renders();
    const renamed = await w.api.put(`/page/${w.target.id}`, { title: 'Auth Basics', slug: 'authentication' });
    expect(renamed.statusCode).toBe(200);
    expect((await w.html(w.page.id)).contentDraft).toContain('>Auth Basics</a>');
    await w.html(w.page.id);
    expect(renders()).toBe(before + 1);

    // A new slug leaves the link naming a page that no longer exists: the slug is shown.
    await w.api.put(`/page/${w.target.id}`, { title: 'Signing In' });
    expect((await w.html(w.page.id)).contentDraft).toContain('>authentication</a>');
  });

  it('renders again when the content or the project variables change, and shares identical contents', async () => {
    const w = await world();
    await w.html(w.page.id);
    let count = renders();
    await w.api.put(`/page/${w.page.id}`, { content: 'Hello %name%.' });
    expect((await w.html(w.page.id)).contentDraft).toBe('<p>Hello %name%.</p>\n');
    expect(renders()).toBe(++count);

    await t.deps.database.db
      .updateTable('projects')
      .set({ variables: '{"name":"Ada"}' })
      .where('id', '=', w.project.id)
      .execute();
    expect((await w.html(w.page.id)).contentDraft).toBe('<p>Hello Ada.</p>\n');
    expect(renders()).toBe(++count);

    const twin = await w.create(w.documentation.id, 'Twin', 'Hello %name%.');
    expect((await w.html(twin.id)).contentDraft).toBe('<p>Hello Ada.</p>\n');
    expect(renders()).toBe(count);
  });

  it('reads a link target’s title once per change of the project, whichever page or format needs it', async () => {
    const w = await world();
    const other = await w.create(
      w.documentation.id,
      'Other',
      'See [auto$](/reference/authentication) and [auto$](/reference/later).',
    );
    const read = async (id: number, format: 'html' | 'markdown') => {
      const res = await w.api.get(`/page/${id}?format=${format}`);
      expect(res.statusCode).toBe(200);
      return res.json<{ contentDraft: string }>().contentDraft;
    };
    const misses = () => t.deps.pages.linkTitleStats().misses;
    const hits = () => t.deps.pages.linkTitleStats().hits;

    expect(await read(w.page.id, 'html')).toContain('>Authentication</a>');
    const missed = misses();
    const hit = hits();
    // Another format of the page, and another page naming the same target: no lookup of its title.
    expect(await read(w.page.id, 'markdown')).toContain('[Authentication]');
    const otherHtml = await read(other.id, 'html');
    expect(otherHtml).toContain('>Authentication</a>');
    expect(otherHtml).toContain('>later</a>');
    expect(misses()).toBe(missed + 1);
    expect(hits()).toBe(hit + 2);
    // A target that named no page is remembered as such, until the project changes.
    expect(await read(other.id, 'markdown')).toContain('[later]');
    expect(misses()).toBe(missed + 1);

    const later = await w.create(w.reference.id, 'Later', 'Written since.');
    expect(later.slug).toBe('later');
    const renamed = await read(other.id, 'html');
    expect(renamed).toContain('>Later</a>');
    expect(renamed).toContain('>Authentication</a>');
    expect(misses()).toBe(missed + 3);

    expect((await w.api.delete(`/page/${w.target.id}`)).statusCode).toBe(200);
    expect(await read(w.page.id, 'html')).toContain('>authentication</a>');
    expect(await read(other.id, 'markdown')).toContain('[Later]');
  });

  it('never renders for darkdown reads', async () => {
    const w = await world();
    const before = renders();
    for (let i = 0; i < 3; i++) await w.api.get(`/page/${w.page.id}`);
    expect(renders()).toBe(before);
  });
});

describe('page reads on both paths', () => {
  it('gives the same rows on the read connection and inside a transaction', async () => {
    const w = await world();
    const queries = new PageQueries(t.deps.database);
    const inTransaction = <T>(read: (trx: Transaction<Database>) => Promise<T>): Promise<T> =>
      t.deps.database.db.transaction().execute(read);
    const view = await inTransaction((trx) => queries.view(trx, w.project.id, w.page.id));
    expect(view).toMatchObject({
      id: w.page.id,
      documentation_slug: 'guides',
      version_slug: 'v1',
      variables: '{}',
    });
    expect(await queries.view(undefined, w.project.id, w.page.id)).toEqual(view);
    expect(await queries.view(undefined, w.project.id + 1000, w.page.id)).toBeUndefined();
    expect(await inTransaction((trx) => queries.view(trx, w.project.id + 1000, w.page.id))).toBeUndefined();
    // Six keys: more than one batch of the statement's slots.
    const keys = [
      'reference/nope',
      'guides/authentication',
      'nowhere/linker',
      'reference/also-missing',
      'guides/linker',
      'reference/authentication',
    ];
    const titles = await inTransaction((trx) => queries.linkTitles(trx, w.version.id, keys));
    const byKey = (rows: Array<{ documentation_slug: string; slug: string; title: string }>) =>
      Object.fromEntries(rows.map((r) => [`${r.documentation_slug}/${r.slug}`, r.title]));
    expect(byKey(titles)).toEqual({
      'reference/authentication': 'Authentication',
      'guides/linker': 'Linker',
    });
    expect(byKey(await queries.linkTitles(undefined, w.version.id, keys))).toEqual(byKey(titles));
    expect(await queries.linkTitles(undefined, w.version.id + 1000, keys)).toEqual([]);
  });

  it('never sees the uncommitted writes of a transaction in progress', async () => {
    const w = await world();
    const queries = new PageQueries(t.deps.database);
    let pending: Promise<unknown> | undefined;
    await t.deps.database.db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('pages').set({ title: 'Uncommitted' }).where('id', '=', w.page.id).execute();
        pending = queries.view(undefined, w.project.id, w.page.id);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await pending).toMatchObject({ title: 'Linker' });
  });
});

describe('page caches within CACHE_MEMORY_MB', () => {
  /** Twelve pages of about 45 KB of source each, and more rendered: 800 KB of html in all. */
  async function readTwice(memoryMb: string) {
    const app = await buildTestApp({ env: { CACHE_MEMORY_MB: memoryMb, RATE_LIMIT_SCALE: '100' } });
    try {
      const w = await createWorld(app.deps);
      const api = client(app.app, w.key);
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) {
        const content = Array.from(
          { length: 1200 },
          (_, line) => `Line ${line} of page ${i}, **bold** text.`,
        );
        const res = await api.post(`/documentation/${w.documentation.id}/page`, {
          title: `Large ${i}`,
          content: content.join('\n\n'),
        });
        expect(res.statusCode).toBe(200);
        ids.push(res.json<{ id: number }>().id);
      }
      const renders = () => app.deps.pages.renderStats().renders;
      const start = renders();
      const storedBefore = app.deps.pages.storedRenderStats().hits;
      for (const round of [1, 2]) {
        // What the first round rendered is stored before the second reads.
        if (round === 2) await app.deps.pages.rendered.idle();
        for (const id of ids) {
          const res = await api.get(`/page/${id}?format=html`);
          expect(res.statusCode, `round ${round}`).toBe(200);
          expect(res.json<{ contentDraft: string }>().contentDraft).toContain(`<strong>bold</strong>`);
        }
      }
      return { renders: renders() - start, stored: app.deps.pages.storedRenderStats().hits - storedBefore };
    } finally {
      await app.close();
    }
  }

  it('renders each page once when the budget holds them all, answering the second reads from memory', async () => {
    expect(await readTwice('64')).toEqual({ renders: 12, stored: 0 });
  });

  it('finds in the database what a small budget could not keep, rendering each page once', async () => {
    // 1 MiB: half for answers, half for rendered contents, each less than the twelve pages need.
    const { renders, stored } = await readTwice('1');
    expect(renders).toBe(12);
    expect(stored).toBeGreaterThanOrEqual(12);
  });

  it('takes the budget in whole MiB from 1', () => {
    expect(loadConfig({ CACHE_MEMORY_MB: '512' }).cacheMemoryMb).toBe(512);
    expect(loadConfig({}).cacheMemoryMb).toBe(256);
    expect(() => loadConfig({ CACHE_MEMORY_MB: '0' })).toThrow(/CACHE_MEMORY_MB/);
    expect(() => loadConfig({ CACHE_MEMORY_MB: 'lots' })).toThrow(/CACHE_MEMORY_MB/);
  });
});

describe('LruCache', () => {
  it('evicts the least recently used entries beyond its entry and weight limits', () => {
    const cache = new LruCache<string>(3, 100, (v) => v.length);
    cache.set('a', 'x'.repeat(10));
    cache.set('b', 'x'.repeat(10));
    cache.set('c', 'x'.repeat(10));
    expect(cache.get('a')).toBeDefined();
    cache.set('d', 'x'.repeat(10));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(3);
    cache.set('e', 'x'.repeat(80));
    expect(cache.get('e')).toBeDefined();
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('d')).toBeDefined();
    cache.set('huge', 'x'.repeat(200));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
