import { describe, expect, it } from 'vitest';
import { createDocumentation, createKey, createVersion, createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

/**
 * v0 (unpublished, first in order), v1 (published: the default version) and v2 (published), each with
 * a section `guides` holding a page `intro` whose content names its version.
 */
async function world() {
  const w = await createWorld(t.deps);
  const api = client(t.app, w.key);
  const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2', published: true });
  const v2Guides = await createDocumentation(t.deps, v2.id, { title: 'Guides', slug: 'guides' });
  await t.deps.database.db.updateTable('versions').set({ ordr: 5 }).where('id', '=', v2.id).execute();
  const v0 = await createVersion(t.deps, w.project.id, { name: 'v0', slug: 'v0', published: false });
  await t.deps.database.db.updateTable('versions').set({ ordr: 0 }).where('id', '=', v0.id).execute();
  const pageIn = async (documentationId: number, content: string) => {
    const res = await api.post(`/documentation/${documentationId}/page`, { title: 'Intro', content });
    expect(res.statusCode).toBe(200);
    return res.json().id as number;
  };
  const v1Page = await pageIn(w.documentation.id, '# In v1');
  const v2Page = await pageIn(v2Guides.id, '# In v2');
  return { ...w, api, v2, v2Guides, v0, v1Page, v2Page };
}

describe('GET /page by slugs', () => {
  it('finds the page with every combination of version and section parameters', async () => {
    const w = await world();
    const combos: Array<[string, number]> = [
      [`version_id=${w.version.id}&documentation_id=${w.documentation.id}`, w.v1Page],
      [`version_id=${w.version.id}&documentation_slug=guides`, w.v1Page],
      [`version_slug=v1&documentation_id=${w.documentation.id}`, w.v1Page],
      ['version_slug=v1&documentation_slug=guides', w.v1Page],
      ['version_slug=v2&documentation_slug=guides', w.v2Page],
      [`version_id=${w.v2.id}&documentation_id=${w.v2Guides.id}`, w.v2Page],
      ['version_slug=latest&documentation_slug=guides', w.v1Page],
      ['version_id=latest&documentation_slug=guides', w.v1Page],
      [`version_id=${w.version.id}&version_slug=v1&documentation_slug=guides`, w.v1Page],
      [`version_id=${w.version.id}&version_slug=latest&documentation_slug=guides`, w.v1Page],
      [`version_slug=v2&documentation_id=${w.v2Guides.id}&documentation_slug=guides`, w.v2Page],
    ];
    for (const [query, id] of combos) {
      const res = await w.api.get(`/page?${query}&page_slug=intro`);
      expect(res.statusCode, query).toBe(200);
      expect(res.json().id, query).toBe(id);
    }
  });

  it('returns the whole Page in the format asked for', async () => {
    const w = await world();
    const res = await w.api.get(
      '/page?version_slug=v2&documentation_slug=guides&page_slug=intro&format=html',
    );
    expect(res.json()).toEqual({
      id: w.v2Page,
      listed: false,
      title: 'Intro',
      created: '2026-11-21T10:15:00+0000',
      updated: '2026-11-21T10:15:00+0000',
      slug: 'intro',
      contentDraft: '<h1 id="in-v2">In v2</h1>\n',
      contentPublished: null,
      path: 'v2/guides/intro',
    });
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    const darkdown = await w.api.get('/page?version_slug=v2&documentation_slug=guides&page_slug=intro');
    expect(darkdown.json().contentDraft).toBe('# In v2');
  });

  it('says in a 400 which parameters are missing', async () => {
    const w = await world();
    const cases: Array<[string, string[]]> = [
      ['', ['query.version_id', 'query.documentation_id', 'query.page_slug']],
      ['page_slug=intro', ['query.version_id', 'query.documentation_id']],
      ['version_slug=v1&page_slug=intro', ['query.documentation_id']],
      ['documentation_slug=guides&page_slug=intro', ['query.version_id']],
      [`version_id=${w.version.id}&documentation_id=${w.documentation.id}`, ['query.page_slug']],
    ];
    for (const [query, fields] of cases) {
      const res = await w.api.get(`/page?${query}`);
      expect(res.statusCode, query).toBe(400);
      const error = expectErrorShape(res);
      expect(
        (error.details as Array<{ field: string }>).map((d) => d.field),
        query,
      ).toEqual(fields);
      expect(error.message).toContain('Missing query parameters');
    }
    const versionMessage = expectErrorShape(
      await w.api.get('/page?documentation_slug=guides&page_slug=intro'),
    );
    expect(versionMessage.message).toContain('version_slug');
  });

  it('validates the parameters themselves', async () => {
    const w = await world();
    const cases: Array<[string, string]> = [
      ['version_id=abc&documentation_slug=guides&page_slug=intro', 'query.version_id'],
      ['version_id=0&documentation_slug=guides&page_slug=intro', 'query.version_id'],
      ['version_slug=v1&documentation_id=x&page_slug=intro', 'query.documentation_id'],
      ['version_slug=v1&documentation_slug=guides&page_slug=intro&format=doc', 'query.format'],
      ['version_slug=v1&documentation_slug=guides&page_slug=', 'query.page_slug'],
    ];
    for (const [query, field] of cases) {
      const res = await w.api.get(`/page?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect((expectErrorShape(res).details as Array<{ field: string }>)[0]?.field, query).toBe(field);
    }
  });

  it('answers 400 when an id and a slug name different versions or sections', async () => {
    const w = await world();
    const versions = await w.api.get(
      `/page?version_id=${w.version.id}&version_slug=v2&documentation_slug=guides&page_slug=intro`,
    );
    expect(versions.statusCode).toBe(400);
    expect(expectErrorShape(versions).details).toEqual([
      { field: 'query.version_slug', message: expect.stringContaining('version_id') as string },
    ]);
    const latest = await w.api.get(
      `/page?version_id=${w.v2.id}&version_slug=latest&documentation_slug=guides&page_slug=intro`,
    );
    expect(latest.statusCode).toBe(400);
    const other = await createDocumentation(t.deps, w.version.id, { slug: 'other' });
    const sections = await w.api.get(
      `/page?version_slug=v1&documentation_id=${other.id}&documentation_slug=guides&page_slug=intro`,
    );
    expect(sections.statusCode).toBe(400);
    expect(expectErrorShape(sections).details).toEqual([
      { field: 'query.documentation_slug', message: expect.stringContaining('documentation_id') as string },
    ]);
  });

  it('answers 404 for what does not exist, a section of another version, or another project', async () => {
    const w = await world();
    const cases = [
      'version_slug=v9&documentation_slug=guides&page_slug=intro',
      'version_id=999999&documentation_slug=guides&page_slug=intro',
      'version_id=9999999999&documentation_slug=guides&page_slug=intro',
      'version_slug=v1&documentation_slug=nope&page_slug=intro',
      'version_slug=v1&documentation_id=999999&page_slug=intro',
      `version_slug=v1&documentation_id=${w.v2Guides.id}&page_slug=intro`,
      'version_slug=v1&documentation_slug=guides&page_slug=missing',
      'version_slug=v0&documentation_slug=guides&page_slug=intro',
    ];
    for (const query of cases) {
      const res = await w.api.get(`/page?${query}`);
      expect(res.statusCode, query).toBe(404);
      expectErrorShape(res);
    }
    const foreign = await createWorld(t.deps);
    const res = await client(t.app, foreign.key).get(
      `/page?version_id=${w.version.id}&documentation_id=${w.documentation.id}&page_slug=intro`,
    );
    expect(res.statusCode).toBe(404);
    const noDefault = await createWorld(t.deps);
    await t.deps.database.db
      .updateTable('versions')
      .set({ published: 0 })
      .where('project_id', '=', noDefault.project.id)
      .execute();
    const latest = await client(t.app, noDefault.key).get(
      '/page?version_slug=latest&documentation_slug=guides&page_slug=intro',
    );
    expect(latest.statusCode).toBe(404);
  });

  it('serves slugs resolved before in another format as the page by id, and follows a rename at once', async () => {
    const w = await world();
    const slugs = '/page?version_slug=v2&documentation_slug=guides&page_slug=intro';
    expect((await w.api.get(slugs)).json().contentDraft).toBe('# In v2');
    // Where the slugs lead is kept; the answer in these formats is not made yet.
    for (const format of ['html', 'text', 'markdown']) {
      const bySlugs = await w.api.get(`${slugs}&format=${format}`);
      expect(bySlugs.statusCode, format).toBe(200);
      expect(bySlugs.body, format).toBe((await w.api.get(`/page/${w.v2Page}?format=${format}`)).body);
    }
    // A key scoped to another version is refused before anything is read.
    const scoped = await createKey(t.deps, w.project.id, { versions: [w.version.id] });
    await w.api.get(`${slugs}&format=html`);
    expect((await client(t.app, scoped.key).get(`${slugs}&format=html`)).statusCode).toBe(403);

    const renamed = await w.api.put(`/page/${w.v2Page}`, { slug: 'renamed', content: '# Renamed' });
    expect(renamed.statusCode).toBe(200);
    for (const format of ['darkdown', 'html']) {
      const gone = await w.api.get(`${slugs}&format=${format}`);
      expect(gone.statusCode).toBe(404);
      expectErrorShape(gone);
      const moved = await w.api.get(
        `/page?version_slug=v2&documentation_slug=guides&page_slug=renamed&format=${format}`,
      );
      expect(moved.statusCode).toBe(200);
      expect(moved.json().path).toBe('v2/guides/renamed');
    }
    // Another page taking the old slug is found by it, not the renamed one.
    const taker = await w.api.post(`/documentation/${w.v2Guides.id}/page`, {
      title: 'Intro',
      content: '# New',
    });
    expect(taker.json().slug).toBe('intro');
    const found = await w.api.get(`${slugs}&format=html`);
    expect(found.json().id).toBe(taker.json().id);
    expect(found.json().contentDraft).toBe('<h1 id="new">New</h1>\n');
  });

  it('answers 403 without page.read and for a version outside the key scope', async () => {
    const w = await world();
    const editor = await createKey(t.deps, w.project.id, { permissions: ['page.edit'] });
    const query = '/page?version_slug=v2&documentation_slug=guides&page_slug=intro';
    expect((await client(t.app, editor.key).get(query)).statusCode).toBe(403);
    const scoped = await createKey(t.deps, w.project.id, { versions: [w.version.id] });
    expect((await client(t.app, scoped.key).get(query)).statusCode).toBe(403);
    const byId = await client(t.app, scoped.key).get(
      `/page?version_slug=v1&documentation_id=${w.v2Guides.id}&page_slug=intro`,
    );
    expect(byId.statusCode).toBe(403);
    const allowed = await client(t.app, scoped.key).get(
      '/page?version_slug=v1&documentation_slug=guides&page_slug=intro',
    );
    expect(allowed.statusCode).toBe(200);
  });
});
