import { afterEach, describe, expect, it } from 'vitest';
import { createWorld, adminContext } from './helpers/factories.ts';
import { upload } from './helpers/references.ts';
import { buildTestApp, client, dialectName, type TestApp } from './helpers/test-app.ts';

// Search answers are kept under the project's change stamp (decision 0024), on both databases:
// served again while nothing a search finds has changed, in this project, on any instance; a write
// that changes what it finds is seen by the next search, and writes that do not keep them.
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.reverse()) await app.close();
  apps.length = 0;
});

async function instance(sharedWith?: TestApp): Promise<TestApp> {
  const app = await buildTestApp({ env: { RATE_LIMIT_SCALE: '100' }, ...(sharedWith ? { sharedWith } : {}) });
  apps.push(app);
  return app;
}

type Api = ReturnType<typeof client>;

async function titles(api: Api, query: string): Promise<string[]> {
  const res = await api.get(`/search?query=${encodeURIComponent(query)}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ hits: Array<{ title: string }> }>().hits.map((hit) => hit.title);
}

async function publishedPage(api: Api, sectionId: number, title: string, content: string): Promise<number> {
  const created = await api.post(`/documentation/${sectionId}/page`, { title, content });
  expect(created.statusCode, created.body).toBe(200);
  const id = created.json<{ id: number }>().id;
  expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
  return id;
}

const hits = (app: TestApp) => app.deps.search.cacheStats().hits;

describe(`search answers kept under the project's change stamp (${dialectName})`, () => {
  it('serves a repeated search again, and the next search after a write sees the write', async () => {
    const a = await instance();
    const w = await createWorld(a.deps);
    const api = client(a.app, w.key);
    const id = await publishedPage(api, w.documentation.id, 'Kennels', 'Where the dogs sleep.');

    expect(await titles(api, 'dogs')).toEqual(['Kennels']);
    const before = hits(a);
    expect(await titles(api, 'dogs')).toEqual(['Kennels']);
    expect(hits(a)).toBe(before + 1);

    // A write to another project leaves it kept.
    const other = await createWorld(a.deps);
    await publishedPage(client(a.app, other.key), other.documentation.id, 'Elsewhere', 'More dogs.');
    expect(await titles(api, 'dogs')).toEqual(['Kennels']);
    expect(hits(a)).toBe(before + 2);

    // A change to what a search finds is found by the very next one.
    expect((await api.put(`/page/${id}`, { title: 'Dog houses' })).statusCode).toBe(200);
    expect(await titles(api, 'dogs')).toEqual(['Dog houses']);
    expect(hits(a)).toBe(before + 2);
  });

  it('follows writes made through another instance, references and changelog posts included', async () => {
    const a = await instance();
    const b = await instance(a);
    const w = await createWorld(a.deps);
    const onA = client(a.app, w.key);
    const onB = client(b.app, w.key);
    expect(await titles(onA, 'kennels')).toEqual([]);
    expect(await titles(onA, 'kennels')).toEqual([]);

    await publishedPage(onB, w.documentation.id, 'Kennels', 'Where the dogs sleep.');
    expect(await titles(onA, 'kennels')).toEqual(['Kennels']);

    const yaml = [
      'openapi: 3.0.3',
      'info: { title: Store, version: "1" }',
      'paths:',
      '  /kennels:',
      '    get:',
      '      responses: { "200": { description: OK } }',
      '',
    ].join('\n');
    expect((await upload(b.app, w.key, w.version.id, yaml, { publish: true })).statusCode).toBe(201);
    expect((await titles(onA, 'kennels')).sort()).toEqual(['GET /kennels', 'Kennels']);

    const changelog = await b.deps.changelogs.create(
      await adminContext(b.deps, { projectId: w.project.id }),
      {
        title: 'Release notes',
      },
    );
    const post = await onB.post(`/changelog/${changelog.id}/post`, {
      title: 'New kennels',
      content: 'Opened.',
      published: true,
    });
    expect(post.statusCode, post.body).toBe(200);
    expect((await titles(onA, 'kennels')).sort()).toEqual(['GET /kennels', 'Kennels', 'New kennels']);
  });
});
