import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { engineFingerprint } from '../src/modules/pages/engine-fingerprint.ts';
import { createDocumentation, createWorld } from './helpers/factories.ts';
import { buildTestApp, client, type TestApp } from './helpers/test-app.ts';

// Rendered outputs kept in the database: found by another instance (or after a restart) instead of
// rendered again, never when what the output depends on has changed, purged when unused.
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.reverse()) await app.close();
  apps.length = 0;
});

const DAY_MS = 24 * 60 * 60 * 1000;

async function instance(env: Record<string, string> = {}, sharedWith?: TestApp): Promise<TestApp> {
  const app = await buildTestApp({
    env: { RATE_LIMIT_SCALE: '100', ...env },
    ...(sharedWith ? { sharedWith } : {}),
  });
  apps.push(app);
  return app;
}

async function world(a: TestApp) {
  const w = await createWorld(a.deps);
  const reference = await createDocumentation(a.deps, w.version.id, {
    title: 'Reference',
    slug: 'reference',
  });
  const api = client(a.app, w.key);
  const create = async (documentationId: number, title: string, content: string) => {
    const res = await api.post(`/documentation/${documentationId}/page`, { title, content });
    expect(res.statusCode).toBe(200);
    return res.json<{ id: number }>();
  };
  const target = await create(reference.id, 'Authentication', 'Keys.');
  const page = await create(
    w.documentation.id,
    'Linker',
    'Hello %name%, read [auto$](/reference/authentication).',
  );
  return { ...w, api, target, page };
}

async function html(app: TestApp, key: string, id: number): Promise<string> {
  const res = await client(app.app, key).get(`/page/${id}?format=html`);
  expect(res.statusCode).toBe(200);
  return res.json<{ contentDraft: string }>().contentDraft;
}

const renders = (app: TestApp) => app.deps.pages.renderStats().renders;

describe('rendered contents stored in the database', () => {
  it('lets another instance read a page without rendering it, with the same answer', async () => {
    const a = await instance();
    const w = await world(a);
    const first = await html(a, w.key, w.page.id);
    expect(first).toContain('>Authentication</a>');
    await a.deps.pages.rendered.idle();
    const stored = await a.deps.database.db.selectFrom('rendered_contents').select(['key', 'json']).execute();
    expect(stored.length).toBeGreaterThanOrEqual(1);
    for (const row of stored) expect(row.key.startsWith(`${engineFingerprint()}:html:`)).toBe(true);

    const b = await instance({}, a);
    expect(await html(b, w.key, w.page.id)).toBe(first);
    expect(renders(b)).toBe(0);
    expect(b.deps.pages.storedRenderStats().hits).toBe(1);
  });

  it('stores the output of a large page rendered in a worker thread, and serves it as it was', async () => {
    const a = await instance();
    const w = await world(a);
    const lines = Array.from({ length: 2500 }, (_, i) => `Line ${i} with **bold** and "quotes" é.`);
    const created = await w.api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Large',
      content: lines.join('\n\n'),
    });
    expect(created.statusCode).toBe(200);
    const id = created.json<{ id: number }>().id;
    const first = await html(a, w.key, id);
    expect(first).toContain('<p>Line 2499 with <strong>bold</strong> and');
    expect(first.length).toBeGreaterThan(64 * 1024);
    await a.deps.pages.rendered.idle();
    const rows = await a.deps.database.db.selectFrom('rendered_contents').select('json').execute();
    expect(rows.map((row) => row.json)).toEqual([1]);

    const b = await instance({}, a);
    expect(await html(b, w.key, id)).toBe(first);
    expect(renders(b)).toBe(0);
  });

  it('serves what is stored under the key, so a stored output is what the next instance answers', async () => {
    // Proof that the second instance reads the table rather than rendering: a row changed by hand
    // under the same key comes back as it is.
    const a = await instance();
    const w = await world(a);
    await html(a, w.key, w.page.id);
    await a.deps.pages.rendered.idle();
    // Outputs are stored as the JSON string an answer sends.
    const rows = await a.deps.database.db.selectFrom('rendered_contents').select(['body', 'json']).execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.json).toBe(1);
      expect(JSON.parse(row.body)).toContain('<p>');
    }
    await a.deps.database.db
      .updateTable('rendered_contents')
      .set({ body: JSON.stringify('<p>from the "table"</p>\n'), json: 1 })
      .execute();
    const b = await instance({}, a);
    expect(await html(b, w.key, w.page.id)).toBe('<p>from the "table"</p>\n');
  });

  it('serves outputs an earlier Quire stored as plain text, and stores them again as JSON', async () => {
    const a = await instance();
    const w = await world(a);
    await html(a, w.key, w.page.id);
    await a.deps.pages.rendered.idle();
    await a.deps.database.db
      .updateTable('rendered_contents')
      .set({ body: '<p>plain "text"\\</p>\n', json: 0 })
      .execute();
    const b = await instance({}, a);
    expect(await html(b, w.key, w.page.id)).toBe('<p>plain "text"\\</p>\n');
    await b.deps.pages.rendered.idle();
    const rows = await a.deps.database.db.selectFrom('rendered_contents').select(['body', 'json']).execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toEqual({ body: JSON.stringify('<p>plain "text"\\</p>\n'), json: 1 });
    const c = await instance({}, a);
    expect(await html(c, w.key, w.page.id)).toBe('<p>plain "text"\\</p>\n');
    expect(renders(c)).toBe(0);
  });

  it('renders afresh when a linked title, the content or the variables changed, whichever instance changed them', async () => {
    const a = await instance();
    const b = await instance({}, a);
    const w = await world(a);
    await html(a, w.key, w.page.id);
    await a.deps.pages.rendered.idle();

    const onB = client(b.app, w.key);
    expect(
      (await onB.put(`/page/${w.target.id}`, { title: 'Auth Basics', slug: 'authentication' })).statusCode,
    ).toBe(200);
    expect(await html(a, w.key, w.page.id)).toContain('>Auth Basics</a>');
    // The title renamed back: the first output's key again, found stored rather than rendered.
    expect(
      (await onB.put(`/page/${w.target.id}`, { title: 'Authentication', slug: 'authentication' })).statusCode,
    ).toBe(200);
    const c = await instance({}, a);
    expect(await html(c, w.key, w.page.id)).toContain('>Authentication</a>');
    expect(renders(c)).toBe(0);

    expect((await onB.put(`/page/${w.page.id}`, { content: 'Now %name%.' })).statusCode).toBe(200);
    expect(await html(a, w.key, w.page.id)).toBe('<p>Now %name%.</p>\n');
    await a.deps.database.db
      .updateTable('projects')
      .set({ variables: '{"name":"Ada"}' })
      .where('id', '=', w.project.id)
      .execute();
    expect(await html(b, w.key, w.page.id)).toBe('<p>Now Ada.</p>\n');
  });

  it('keeps outputs in use and purges those neither stored nor found for 7 days', async () => {
    const a = await instance();
    const w = await world(a);
    const other = await client(a.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
      title: 'Other',
      content: 'Other *page*.',
    });
    const otherId = other.json<{ id: number }>().id;
    await html(a, w.key, w.page.id);
    await html(a, w.key, otherId);
    await a.deps.pages.rendered.idle();
    const count = async () =>
      (await a.deps.database.db.selectFrom('rendered_contents').select('key').execute()).length;
    expect(await count()).toBe(2);

    // 4 days on, a new instance finds the first page's output (past halfway: stored again, dated now).
    a.clock.advance(4 * DAY_MS);
    const b = await instance({}, a);
    await html(b, w.key, w.page.id);
    await b.deps.pages.rendered.idle();
    expect(renders(b)).toBe(0);

    a.clock.advance(4 * DAY_MS);
    expect(await a.deps.pages.rendered.purge()).toBe(1);
    expect(await count()).toBe(1);
    const c = await instance({}, a);
    await html(c, w.key, w.page.id);
    expect(renders(c)).toBe(0);
  });
});

describe('rendering ahead (RENDER_AHEAD)', () => {
  it('renders and stores the HTML of a page shortly after it is written, so its first read renders nothing', async () => {
    const a = await instance({ RENDER_AHEAD: 'true' });
    const w = await world(a);
    await a.deps.pages.ahead.idle();
    await a.deps.pages.rendered.idle();
    expect(a.deps.pages.ahead.stats()).toEqual({ queued: 2, prepared: 2, failures: 0 });
    const before = renders(a);
    expect(await html(a, w.key, w.page.id)).toContain('>Authentication</a>');
    expect(renders(a)).toBe(before);

    // Another instance finds it stored, and its answer equals one rendered on the spot.
    const b = await instance({}, a);
    const stored = await html(b, w.key, w.page.id);
    expect(renders(b)).toBe(0);
    await a.deps.database.db.deleteFrom('rendered_contents').execute();
    const c = await instance({}, a);
    expect(await html(c, w.key, w.page.id)).toBe(stored);
    expect(renders(c)).toBe(1);

    // A content change is rendered ahead too; a title change is not (its content is the same).
    const api = client(a.app, w.key);
    expect((await api.put(`/page/${w.page.id}`, { content: 'Changed *now*.' })).statusCode).toBe(200);
    expect((await api.put(`/page/${w.target.id}`, { title: 'Renamed' })).statusCode).toBe(200);
    await a.deps.pages.ahead.idle();
    expect(a.deps.pages.ahead.stats().prepared).toBe(3);
    const afterChange = renders(a);
    expect(await html(a, w.key, w.page.id)).toBe('<p>Changed <em>now</em>.</p>\n');
    expect(renders(a)).toBe(afterChange);
  });

  it('is on by default and can be turned off', () => {
    expect(loadConfig({}).renderAhead).toBe(true);
    expect(loadConfig({ RENDER_AHEAD: 'false' }).renderAhead).toBe(false);
    expect(() => loadConfig({ RENDER_AHEAD: 'later' })).toThrow(/RENDER_AHEAD must be 'true' or 'false'/);
  });
});
