import { describe, expect, it } from 'vitest';
import { createDocumentation, createVersion, createWorld } from './helpers/factories.ts';
import { upload } from './helpers/references.ts';
import { client, useTestApp } from './helpers/test-app.ts';
import { zipTexts } from './helpers/zip.ts';

// One notion of what is live and what readers can see (docs/decisions/0023-visibility.md): the
// listing, search, export, the report and restore each leave out the same things.

const t = useTestApp();

type Api = ReturnType<typeof client>;

async function page(api: Api, sectionId: number, title: string, options: { publish: boolean }) {
  const res = await api.post(`/documentation/${sectionId}/page`, { title, content: `${title} grazes.` });
  expect(res.statusCode, res.body).toBe(200);
  const id = res.json<{ id: number }>().id;
  if (options.publish) expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
  return id;
}

async function searchedTitles(api: Api, query: string): Promise<string[]> {
  const res = await api.get(`/search?query=${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res
    .json<{ hits: Array<{ title: string }> }>()
    .hits.map((hit) => hit.title)
    .sort();
}

interface Listing {
  page: Record<string, { title: string }>;
  documentation: Record<string, { title: string }>;
  reference: Record<string, { title: string }>;
}

async function listing(api: Api, query = ''): Promise<Listing> {
  const res = await api.get(`/all${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Listing>();
}

const titlesOf = (items: Record<string, { title: string }>) =>
  Object.values(items)
    .map((item) => item.title)
    .sort();

const definition = (title: string) =>
  [
    'openapi: 3.1.0',
    `info: { title: ${title}, version: "1" }`,
    'paths:',
    '  /yaks:',
    '    get: { operationId: listYaks, summary: Yak herds, responses: { "200": { description: OK } } }',
  ].join('\n');

describe('what readers can see', () => {
  it('search and /all?published=true leave out drafts, unlisted pages, hidden sections and deleted pages', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const hidden = await createDocumentation(t.deps, w.version.id, { title: 'Hidden', published: false });
    await page(api, w.documentation.id, 'Visible', { publish: true });
    await page(api, w.documentation.id, 'Draft', { publish: false });
    const unlisted = await page(api, w.documentation.id, 'Unlisted', { publish: true });
    expect((await api.put(`/page/${unlisted}`, { listed: false })).statusCode).toBe(200);
    await page(api, hidden.id, 'Sheltered', { publish: true });
    const deleted = await page(api, w.documentation.id, 'Deleted', { publish: true });
    expect((await api.delete(`/page/${deleted}`)).statusCode).toBe(200);
    expect((await upload(t.app, w.key, w.version.id, definition('Shown'))).statusCode).toBe(201);
    const draft = await upload(t.app, w.key, w.version.id, definition('Unshown'), { publish: false });
    expect(draft.statusCode).toBe(201);

    expect(await searchedTitles(api, 'grazes')).toEqual(['Visible']);
    expect(await searchedTitles(api, 'herds')).toEqual(['Yak herds']);
    const readers = await listing(api, '?published=true');
    expect(titlesOf(readers.page)).toEqual(['Visible']);
    expect(titlesOf(readers.documentation)).toEqual(['Guides']);
    expect(titlesOf(readers.reference)).toEqual(['Shown']);
    // Without the filter: every live thing, the deleted page still out.
    const everything = await listing(api);
    expect(titlesOf(everything.page)).toEqual(['Draft', 'Sheltered', 'Unlisted', 'Visible']);
    expect(titlesOf(everything.documentation)).toEqual(['Guides', 'Hidden']);
    expect(titlesOf(everything.reference)).toEqual(['Shown', 'Unshown']);
  });

  it('/all?published=true lists a listed page with no published contents, which search does not find', async () => {
    // The one place the two differ (decision 0023): the listing filters on `listed` alone, as
    // decision 0005 wrote it, while readers cannot open a page without published contents.
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const id = await page(api, w.documentation.id, 'Announced', { publish: false });
    expect((await api.put(`/page/${id}`, { listed: true })).statusCode).toBe(200);
    expect((await api.get(`/page/${id}`)).json()).toMatchObject({ listed: true, contentPublished: null });

    expect(titlesOf((await listing(api, '?published=true')).page)).toEqual(['Announced']);
    expect(await searchedTitles(api, 'grazes')).toEqual([]);
    expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
    expect(await searchedTitles(api, 'grazes')).toEqual(['Announced']);
  });

  it('a section deleted with its pages leaves export and the report, and its pages cannot come back alone', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const old = await createDocumentation(t.deps, w.version.id, { title: 'Old', slug: 'old' });
    const kept = await page(api, w.documentation.id, 'Kept', { publish: true });
    const gone = await page(api, old.id, 'Gone', { publish: true });
    const trashed = await page(api, old.id, 'Trashed', { publish: true });
    expect((await api.delete(`/page/${trashed}`)).statusCode).toBe(200);
    expect((await api.delete(`/documentation/${old.id}?cascade=true`)).statusCode).toBe(200);

    const exported = await api.get('/export');
    expect(exported.statusCode).toBe(200);
    const names = Object.keys(await zipTexts(exported.rawPayload));
    expect(names.some((name) => name.includes('/Guides/') && name.includes('Kept'))).toBe(true);
    expect(names.some((name) => /Old|Gone|Trashed/.test(name))).toBe(false);
    const report = await api.get(`/version/${w.version.id}/report`);
    expect(report.statusCode, report.body).toBe(200);
    expect(report.json<Array<{ id: number }>>().map((row) => row.id)).toEqual([kept]);
    // Restoring a page needs its section live: neither the one deleted before nor the one after.
    for (const id of [gone, trashed]) {
      expect((await api.post(`/page/${id}/restore`)).statusCode).toBe(404);
      expect((await api.get(`/page/${id}`)).statusCode).toBe(404);
    }
  });

  it('a deleted version takes its sections, pages and references out of every read', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const next = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2', published: true });
    const section = await createDocumentation(t.deps, next.id, { title: 'Next', slug: 'next' });
    const id = await page(api, section.id, 'Upcoming', { publish: true });
    const trashed = await page(api, section.id, 'Binned', { publish: true });
    expect((await api.delete(`/page/${trashed}`)).statusCode).toBe(200);
    const uploaded = await upload(t.app, w.key, next.id, definition('Later'));
    const reference = uploaded.json<{ id: number }>().id;
    expect(await searchedTitles(api, 'grazes')).toEqual(['Upcoming']);
    expect((await api.delete(`/version/${next.id}`)).statusCode).toBe(200);

    expect((await api.get(`/page/${id}`)).statusCode).toBe(404);
    expect((await api.get(`/documentation/${section.id}`)).statusCode).toBe(404);
    expect((await api.get(`/reference/${reference}`)).statusCode).toBe(404);
    expect((await api.post(`/page/${trashed}/restore`)).statusCode).toBe(404);
    expect(await searchedTitles(api, 'grazes')).toEqual([]);
    expect(await searchedTitles(api, 'herds')).toEqual([]);
    const all = await listing(api);
    expect(titlesOf(all.page)).toEqual([]);
    expect(titlesOf(all.documentation)).toEqual(['Guides']);
    expect(titlesOf(all.reference)).toEqual([]);
    const bySlug = await api.get('/search?query=grazes&documentation_slug=next');
    expect(bySlug.json<{ nbHits: number }>().nbHits).toBe(0);
  });
});
