import { describe, expect, it } from 'vitest';
import { auditEntries, createKey, createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { zipTexts } from './helpers/zip.ts';

const t = useTestApp();

/** A published page in the world's section, found by search under `word`. */
async function publishedPage(key: string, documentationId: number, title: string, word: string) {
  const api = client(t.app, key);
  const created = await api.post(`/documentation/${documentationId}/page`, {
    title,
    content: `About ${word}.`,
  });
  expect(created.statusCode).toBe(200);
  const id = created.json<{ id: number }>().id;
  expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
  return id;
}

const hits = async (key: string, query: string) =>
  (await client(t.app, key).get(`/search?query=${query}`)).json<{ nbHits: number }>().nbHits;

describe('versions over HTTP', () => {
  it('creates a version (slug from the name, unpublished, last) and audits it', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const res = await api.post('/version', { name: 'Version 2.0' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'Version 2.0', slug: 'version-2-0', published: false, ordr: 2 });
    expect((await api.post('/version', { name: 'Again', slug: 'v1' })).statusCode).toBe(409);
    expect((await api.post('/version', { name: 'Latest', slug: 'latest' })).statusCode).toBe(400);
    expect((await api.post('/version', { slug: 'x' })).statusCode).toBe(400);
    const versions = (await api.get('/version')).json<Array<{ slug: string }>>();
    expect(versions.map((v) => v.slug)).toEqual(['v1', 'version-2-0']);
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({
      entity: 'version',
      operation: 'INS',
      message: "Version 'Version 2.0' created",
    });
  });

  it('deletes a version, and everything in it leaves reads, /all and search; never the last published one', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const last = await api.delete(`/version/${w.version.id}`);
    expect(last.statusCode).toBe(409);
    expect(expectErrorShape(last).message).toMatch(/last published version/);

    const v2 = (await api.post('/version', { name: 'v2', published: true })).json<{ id: number }>();
    const section = (
      await api.post(`/version/${v2.id}/documentation`, { title: 'Docs', published: true })
    ).json<{
      id: number;
    }>();
    const page = await publishedPage(w.key, section.id, 'Zebra page', 'zebras');
    expect(await hits(w.key, 'zebras')).toBe(1);

    const res = await api.delete(`/version/${v2.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect((await api.get(`/page/${page}`)).statusCode).toBe(404);
    expect((await api.get('/version')).json<Array<{ id: number }>>().map((v) => v.id)).toEqual([
      w.version.id,
    ]);
    const all = (await api.get('/all')).json<{ page: object; version: object }>();
    expect(Object.keys(all.page)).toEqual([]);
    expect(Object.keys(all.version)).toEqual([String(w.version.id)]);
    expect(await hits(w.key, 'zebras')).toBe(0);
    expect((await api.delete(`/version/${v2.id}`)).statusCode).toBe(404);
    // Its slug stays taken by the deleted row.
    expect((await api.post('/version', { name: 'v2', slug: 'v2' })).statusCode).toBe(409);
  });

  it('needs version.edit', async () => {
    const w = await createWorld(t.deps);
    const { key } = await createKey(t.deps, w.project.id, {
      permissions: ['version.publish', 'project.read'],
    });
    const res = await client(t.app, key).post('/version', { name: 'No' });
    expect(res.statusCode).toBe(403);
    expect(expectErrorShape(res).message).toContain('version.edit');
    expect((await client(t.app, key).delete(`/version/${w.version.id}`)).statusCode).toBe(403);
  });
});

describe('documentation sections and categories over HTTP', () => {
  it('creates, renames, re-slugs, publishes and reorders sections', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const created = await api.post(`/version/${w.version.id}/documentation`, { title: 'API Guides' });
    expect(created.statusCode).toBe(201);
    const second = created.json<{ id: number }>();
    expect(created.json()).toMatchObject({
      title: 'API Guides',
      slug: 'api-guides',
      published: false,
      ordr: 2,
    });
    const third = (
      await api.post(`/version/${w.version.id}/documentation`, { title: 'Third', slug: 'third' })
    ).json<{
      id: number;
    }>();
    expect(
      (await api.post(`/version/${w.version.id}/documentation`, { title: 'X', slug: 'third' })).statusCode,
    ).toBe(409);

    const moved = await api.put(`/documentation/${third.id}`, {
      ordr: 0,
      title: 'First now',
      published: true,
    });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ title: 'First now', slug: 'third', published: true, ordr: 0 });
    const order = (await api.get(`/version/${w.version.id}/documentation`)).json<
      Array<{ id: number; ordr: number }>
    >();
    expect(order.map((d) => [d.id, d.ordr])).toEqual([
      [third.id, 0],
      [w.documentation.id, 1],
      [second.id, 2],
    ]);
    expect((await api.put(`/documentation/${second.id}`, { slug: 'guides' })).statusCode).toBe(409);
    expect((await api.put(`/documentation/${second.id}`, { slug: 'api' })).json()).toMatchObject({
      slug: 'api',
    });
    expect((await api.put(`/documentation/${second.id}`, {})).statusCode).toBe(400);
    expect((await api.put(`/documentation/999999`, { title: 'x' })).statusCode).toBe(404);
  });

  it('refuses to delete a section holding pages unless cascade=true, which removes them from /all and search', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const page = await publishedPage(w.key, w.documentation.id, 'Giraffe', 'giraffes');
    expect(await hits(w.key, 'giraffes')).toBe(1);

    const refused = await api.delete(`/documentation/${w.documentation.id}`);
    expect(refused.statusCode).toBe(409);
    expect(expectErrorShape(refused).message).toMatch(/holds 1 page/);
    expect((await api.get(`/page/${page}`)).statusCode).toBe(200);

    const res = await api.delete(`/documentation/${w.documentation.id}?cascade=true`);
    expect(res.statusCode).toBe(200);
    expect((await api.get(`/page/${page}`)).statusCode).toBe(404);
    const all = (await api.get('/all')).json<{ page: object; documentation: object }>();
    expect(all).toMatchObject({ page: {}, documentation: {} });
    expect(await hits(w.key, 'giraffes')).toBe(0);
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({ entity: 'documentation', operation: 'DEL' });
    expect(JSON.parse(entry?.details ?? '{}')).toMatchObject({ pages: 1 });

    const empty = (await api.post(`/version/${w.version.id}/documentation`, { title: 'Empty' })).json<{
      id: number;
    }>();
    expect((await api.delete(`/documentation/${empty.id}`)).statusCode).toBe(200);
  });

  it('adds categories at the end of the index; needs documentation.edit', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await api.post(`/documentation/${w.documentation.id}/page`, { title: 'First', content: 'x' });
    const res = await api.post(`/documentation/${w.documentation.id}/category`, { title: 'Basics' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ id: expect.any(Number) as number, title: 'Basics', position: 2 });
    expect((await api.post(`/documentation/${w.documentation.id}/category`, { title: ' ' })).statusCode).toBe(
      400,
    );

    const { key } = await createKey(t.deps, w.project.id, { permissions: ['page.edit'] });
    const forbidden = await client(t.app, key).post(`/documentation/${w.documentation.id}/category`, {
      title: 'No',
    });
    expect(forbidden.statusCode).toBe(403);
    expect(
      (await client(t.app, key).put(`/documentation/${w.documentation.id}`, { title: 'No' })).statusCode,
    ).toBe(403);
  });
});

describe('PUT /page/{id} moves pages and lists them', () => {
  it('moves a page into a category, under another page, and back; the export shows each place', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const create = async (title: string) =>
      (await api.post(`/documentation/${w.documentation.id}/page`, { title, content: title })).json<{
        id: number;
      }>().id;
    const a = await create('A');
    await api.post(`/documentation/${w.documentation.id}/category`, { title: 'Basics' });
    const b = await create('B');
    const c = await create('C');
    const layout = async () =>
      Object.keys(await zipTexts((await api.get('/export')).rawPayload)).filter((f) => f.endsWith('.md'));
    expect(await layout()).toEqual([
      'v1/Guides/1 A.md',
      'v1/Guides/2 Basics.md',
      'v1/Guides/3 B.md',
      'v1/Guides/4 C.md',
    ]);

    // A into the category: right after it, as B and C were made outside it. Then C under A, with
    // its own child D following.
    expect((await api.put(`/page/${a}`, { categoryTitle: 'basics' })).statusCode).toBe(200);
    expect(await layout()).toEqual([
      'v1/Guides/1 Basics.md',
      'v1/Guides/2 A.md',
      'v1/Guides/3 B.md',
      'v1/Guides/4 C.md',
    ]);
    const d = await create('D');
    expect((await api.put(`/page/${d}`, { parentId: c })).statusCode).toBe(200);
    expect((await api.put(`/page/${c}`, { parentId: a })).statusCode).toBe(200);
    expect(await layout()).toEqual([
      'v1/Guides/1 Basics.md',
      'v1/Guides/2 A.md',
      'v1/Guides/A/1 C.md',
      'v1/Guides/A/C/1 D.md',
      'v1/Guides/3 B.md',
    ]);

    // A page cannot go under itself or its own descendant.
    const cycle = await api.put(`/page/${a}`, { parentId: d });
    expect(cycle.statusCode).toBe(400);
    expect(JSON.stringify(expectErrorShape(cycle))).toMatch(/own ancestor/);
    expect((await api.put(`/page/${a}`, { parentId: a })).statusCode).toBe(400);
    expect((await api.put(`/page/${a}`, { categoryTitle: 'Nope' })).statusCode).toBe(400);
    expect((await api.put(`/page/${a}`, { categoryTitle: 'Basics', parentId: b })).statusCode).toBe(400);

    expect((await api.put(`/page/${c}`, { parentId: null })).statusCode).toBe(200);
    expect(await layout()).toContain('v1/Guides/4 C.md');
    expect(await layout()).toContain('v1/Guides/C/1 D.md');
  });

  it('refuses a parent in another section', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const other = (await api.post(`/version/${w.version.id}/documentation`, { title: 'Other' })).json<{
      id: number;
    }>();
    const here = (
      await api.post(`/documentation/${w.documentation.id}/page`, { title: 'Here', content: 'x' })
    ).json<{
      id: number;
    }>();
    const there = (await api.post(`/documentation/${other.id}/page`, { title: 'There', content: 'x' })).json<{
      id: number;
    }>();
    const res = await api.put(`/page/${here.id}`, { parentId: there.id });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(expectErrorShape(res))).toMatch(/another documentation section/);
  });

  it('unlists and lists a page: it leaves and rejoins search, and the change is in its history', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const id = await publishedPage(w.key, w.documentation.id, 'Okapi', 'okapis');
    const res = await api.put(`/page/${id}`, { listed: false });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ listed: false, contentPublished: 'About okapis.' });
    expect(await hits(w.key, 'okapis')).toBe(0);
    expect((await api.put(`/page/${id}`, { listed: true })).json()).toMatchObject({ listed: true });
    expect(await hits(w.key, 'okapis')).toBe(1);
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(JSON.parse(entry?.details ?? '{}')).toMatchObject({ listed: true });
  });
});
