import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { auditEntries, createKey, createVersion, createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { zipTexts } from './helpers/zip.ts';

const t = useTestApp();
const DAY = 24 * 60 * 60 * 1000;

type Api = ReturnType<typeof client>;

async function page(api: Api, documentationId: number, title: string, extra: Record<string, unknown> = {}) {
  const res = await api.post(`/documentation/${documentationId}/page`, {
    title,
    content: `All about ${title.toLowerCase()}.`,
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ id: number; slug: string }>();
}

async function published(api: Api, documentationId: number, title: string, parentId?: number) {
  const created = await page(api, documentationId, title);
  if (parentId !== undefined) {
    expect((await api.put(`/page/${created.id}`, { parentId })).statusCode).toBe(200);
  }
  expect((await api.put(`/page/${created.id}/publish`)).statusCode).toBe(200);
  return created;
}

const hits = async (api: Api, query: string) =>
  (await api.get(`/search?query=${query}`)).json<{ nbHits: number }>().nbHits;

/** A page with a child and a grandchild, all published: the tree a delete takes with it. */
async function tree(api: Api, documentationId: number) {
  const parent = await published(api, documentationId, 'Walruses');
  const child = await published(api, documentationId, 'Narwhals', parent.id);
  const grandchild = await published(api, documentationId, 'Belugas', child.id);
  return { parent, child, grandchild };
}

describe('DELETE /page/{id}', () => {
  it('takes the page and its sub-pages out of every read, listing, search, export and history at once', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const { parent, child, grandchild } = await tree(api, w.documentation.id);
    const other = await published(api, w.documentation.id, 'Seals');
    expect(await hits(api, 'narwhals')).toBe(1);

    const res = await api.delete(`/page/${parent.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect(res.headers['x-ratelimit-limit']).toBe('10800');

    for (const id of [parent.id, child.id, grandchild.id]) {
      expect((await api.get(`/page/${id}`)).statusCode).toBe(404);
      expect((await api.get(`/page/${id}/history`)).statusCode).toBe(404);
      expect((await api.put(`/page/${id}`, { title: 'Back?' })).statusCode).toBe(404);
    }
    expect((await api.get(`/page/${other.id}`)).statusCode).toBe(200);
    const bySlug = await api.get(`/page?version_slug=v1&documentation_slug=guides&page_slug=${child.slug}`);
    expect(bySlug.statusCode).toBe(404);
    const all = (await api.get('/all')).json<{ page: Record<string, unknown> }>();
    expect(Object.keys(all.page)).toEqual([String(other.id)]);
    expect(await hits(api, 'walruses')).toBe(0);
    expect(await hits(api, 'narwhals')).toBe(0);
    expect(await hits(api, 'belugas')).toBe(0);
    expect(await hits(api, 'seals')).toBe(1);
    const exported = await api.get('/export');
    expect(exported.statusCode).toBe(200);
    const names = Object.keys(await zipTexts(exported.rawPayload));
    expect(names.some((name) => /walruses|narwhals|belugas/i.test(name))).toBe(false);
    expect(names.some((name) => /seals/i.test(name))).toBe(true);

    // A second delete finds nothing.
    expect((await api.delete(`/page/${parent.id}`)).statusCode).toBe(404);
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({ entity: 'page', entity_id: String(parent.id), operation: 'DEL' });
    expect(entry?.message).toBe("Page 'Walruses' deleted");
    expect(JSON.parse(entry!.details)).toMatchObject({
      slug: 'walruses',
      pageIds: [parent.id, child.id, grandchild.id],
    });
  });

  it('deleting a sub-page leaves its parent; the freed slug may be taken by a new page', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const { parent, child, grandchild } = await tree(api, w.documentation.id);
    expect((await api.delete(`/page/${child.id}`)).statusCode).toBe(200);
    expect((await api.get(`/page/${parent.id}`)).statusCode).toBe(200);
    expect((await api.get(`/page/${grandchild.id}`)).statusCode).toBe(404);
    const again = await page(api, w.documentation.id, 'Narwhals');
    expect(again.slug).toBe('narwhals');
    const explicit = await page(api, w.documentation.id, 'Other belugas', { slug: 'belugas' });
    expect(explicit.slug).toBe('belugas');
  });

  it('needs page.delete, honours If-Match and the version scope, and keeps other projects out', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const target = await page(api, w.documentation.id, 'Kept');
    const editor = await createKey(t.deps, w.project.id, { permissions: ['page.edit', 'page.read'] });
    const refused = await client(t.app, editor.key).delete(`/page/${target.id}`);
    expect(refused.statusCode).toBe(403);
    expect(expectErrorShape(refused).message).toMatch(/page\.delete/);

    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2' });
    const scoped = await createKey(t.deps, w.project.id, { permissions: ['page.delete'], versions: [v2.id] });
    expect((await client(t.app, scoped.key).delete(`/page/${target.id}`)).statusCode).toBe(403);

    const stranger = await createWorld(t.deps);
    expect((await client(t.app, stranger.key).delete(`/page/${target.id}`)).statusCode).toBe(404);

    const stale = await api.delete(`/page/${target.id}`, { headers: { 'if-match': '"stale"' } });
    expect(stale.statusCode).toBe(412);
    const current = (await api.get(`/page/${target.id}`)).headers.etag as string;
    expect((await api.delete(`/page/${target.id}`, { headers: { 'if-match': current } })).statusCode).toBe(
      200,
    );
  });
});

describe('POST /page/{id}/restore', () => {
  it('brings the page back with its sub-pages, history and search entries', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const { parent, child, grandchild } = await tree(api, w.documentation.id);
    const before = (await api.get(`/page/${parent.id}/history`)).json<{ total: number }>().total;
    expect((await api.delete(`/page/${parent.id}`)).statusCode).toBe(200);

    const res = await api.post(`/page/${parent.id}/restore`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: parent.id, slug: 'walruses', listed: true });
    expect(res.headers.etag).toBeDefined();
    for (const id of [parent.id, child.id, grandchild.id]) {
      expect((await api.get(`/page/${id}`)).statusCode).toBe(200);
    }
    expect((await api.get(`/page/${parent.id}/history`)).json<{ total: number }>().total).toBe(before);
    expect(await hits(api, 'belugas')).toBe(1);
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({ entity: 'page', operation: 'UPD', message: "Page 'Walruses' restored" });

    const notDeleted = await api.post(`/page/${parent.id}/restore`);
    expect(notDeleted.statusCode).toBe(409);
    expect(expectErrorShape(notDeleted).message).toMatch(/not deleted/);
    expect((await api.post('/page/999999/restore')).statusCode).toBe(404);
  });

  it('makes the slug unique when another page took it meanwhile', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const { parent, child } = await tree(api, w.documentation.id);
    expect((await api.delete(`/page/${parent.id}`)).statusCode).toBe(200);
    const taker = await page(api, w.documentation.id, 'Walruses');
    const childTaker = await page(api, w.documentation.id, 'Narwhals');
    expect([taker.slug, childTaker.slug]).toEqual(['walruses', 'narwhals']);

    const res = await api.post(`/page/${parent.id}/restore`);
    expect(res.statusCode).toBe(200);
    expect(res.json<{ slug: string }>().slug).toBe('walruses-2');
    expect((await api.get(`/page/${child.id}`)).json<{ slug: string }>().slug).toBe('narwhals-2');
    expect((await api.get(`/page/${taker.id}`)).json<{ slug: string }>().slug).toBe('walruses');
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(JSON.parse(entry!.details)).toMatchObject({ slug: 'walruses-2', slugTaken: 'walruses' });
  });

  it('a page deleted with its parent comes back only with the parent', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const { parent, child } = await tree(api, w.documentation.id);
    expect((await api.delete(`/page/${parent.id}`)).statusCode).toBe(200);
    const res = await api.post(`/page/${child.id}/restore`);
    expect(res.statusCode).toBe(409);
    expect(expectErrorShape(res).message).toContain(`page ${parent.id}`);
    expect((await api.get(`/page/${child.id}`)).statusCode).toBe(404);
  });

  it('a sub-page deleted on its own before its parent stays deleted when the parent comes back', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const { parent, child, grandchild } = await tree(api, w.documentation.id);
    expect((await api.delete(`/page/${grandchild.id}`)).statusCode).toBe(200);
    t.clock.advance(1000);
    expect((await api.delete(`/page/${parent.id}`)).statusCode).toBe(200);
    expect((await api.post(`/page/${parent.id}/restore`)).statusCode).toBe(200);
    expect((await api.get(`/page/${child.id}`)).statusCode).toBe(200);
    expect((await api.get(`/page/${grandchild.id}`)).statusCode).toBe(404);
    expect((await api.post(`/page/${grandchild.id}/restore`)).statusCode).toBe(200);
  });

  it('needs page.delete', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const target = await page(api, w.documentation.id, 'Gone');
    expect((await api.delete(`/page/${target.id}`)).statusCode).toBe(200);
    const editor = await createKey(t.deps, w.project.id, { permissions: ['page.edit'] });
    expect((await client(t.app, editor.key).post(`/page/${target.id}/restore`)).statusCode).toBe(403);
  });
});

describe('purge of deleted rows', () => {
  it('removes pages deleted more than 30 days ago, and only those (bin/quire purge)', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const old = await tree(api, w.documentation.id);
    expect((await api.delete(`/page/${old.parent.id}`)).statusCode).toBe(200);
    t.clock.advance(29 * DAY);
    const recent = await page(api, w.documentation.id, 'Recent');
    expect((await api.delete(`/page/${recent.id}`)).statusCode).toBe(200);
    t.clock.advance(2 * DAY);

    let out = '';
    const code = await runCli(['purge'], { stdout: (s) => (out += s), stderr: () => undefined }, t.deps);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ pages: 3 });
    const rows = await t.deps.database.db
      .selectFrom('pages')
      .select('id')
      .where('documentation_id', '=', w.documentation.id)
      .execute();
    expect(rows.map((r) => r.id)).toEqual([recent.id]);
    const history = await t.deps.database.db
      .selectFrom('page_history')
      .select('id')
      .where('page_id', '=', old.parent.id)
      .execute();
    expect(history).toEqual([]);
    expect((await api.post(`/page/${old.parent.id}/restore`)).statusCode).toBe(404);
    expect((await api.post(`/page/${recent.id}/restore`)).statusCode).toBe(200);
  });

  it('removes versions and sections deleted long ago with what they held', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const v2 = (await api.post('/version', { name: 'v2' })).json<{ id: number }>();
    const section = (await api.post(`/version/${v2.id}/documentation`, { title: 'Old' })).json<{
      id: number;
    }>();
    await page(api, section.id, 'Inside');
    expect((await api.delete(`/version/${v2.id}`)).statusCode).toBe(200);
    t.clock.advance(31 * DAY);
    const report = await t.deps.pages.purgeDeleted();
    expect(report.versions).toBe(1);
    const left = await t.deps.database.db
      .selectFrom('documentation')
      .select('id')
      .where('id', '=', section.id)
      .execute();
    expect(left).toEqual([]);
  });
});
