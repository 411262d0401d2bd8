import { afterEach, describe, expect, it } from 'vitest';
import { createKey, createVersion, createWorld, PAGE_FIELDS } from './helpers/factories.ts';
import { buildTestApp, client, type TestApp } from './helpers/test-app.ts';

// Answers of GET /page/{id} are kept while the database is unchanged; these tests hold any such
// cache to never serving what a change has made stale, whoever made the change.
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.reverse()) await app.close();
  apps.length = 0;
});

async function twoInstances() {
  const a = await buildTestApp();
  apps.push(a);
  const b = await buildTestApp({ sharedWith: a });
  apps.push(b);
  const w = await createWorld(a.deps);
  const created = await client(a.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
    title: 'Cached',
    content: 'First words.',
  });
  expect(created.statusCode).toBe(200);
  return { a, b, w, pageId: created.json<{ id: number }>().id };
}

describe('GET /page/{id} answers and changes', () => {
  it('serves a change made through another instance on the next read', async () => {
    const { a, b, w, pageId } = await twoInstances();
    const readOnA = () => client(a.app, w.key).get(`/page/${pageId}?format=html`);
    expect((await readOnA()).json().contentDraft).toContain('First words.');
    expect((await readOnA()).json().contentDraft).toContain('First words.');
    const updated = await client(b.app, w.key).put(`/page/${pageId}`, { content: 'Second words.' });
    expect(updated.statusCode).toBe(200);
    // A commit through another connection is seen within a millisecond (src/db/dialect.ts).
    await new Promise((resolve) => setTimeout(resolve, 2));
    expect((await readOnA()).json().contentDraft).toContain('Second words.');
  });

  it('serves the same bytes for repeated reads, as a JSON answer with every field', async () => {
    const { a, w, pageId } = await twoInstances();
    const first = await client(a.app, w.key).get(`/page/${pageId}?format=text`);
    const second = await client(a.app, w.key).get(`/page/${pageId}?format=text`);
    expect(second.body).toBe(first.body);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(second.json())).toEqual([...PAGE_FIELDS]);
  });

  it('checks the key on every read: another project gets 404, another version scope 403', async () => {
    const { a, w, pageId } = await twoInstances();
    expect((await client(a.app, w.key).get(`/page/${pageId}`)).statusCode).toBe(200);
    const stranger = await createWorld(a.deps);
    expect((await client(a.app, stranger.key).get(`/page/${pageId}`)).statusCode).toBe(404);
    const v2 = await createVersion(a.deps, w.project.id, { name: 'v2' });
    const scoped = await createKey(a.deps, w.project.id, { versions: [v2.id] });
    expect((await client(a.app, scoped.key).get(`/page/${pageId}`)).statusCode).toBe(403);
  });
});

describe('GET /page/{id} answers and the project change stamp', () => {
  it('keeps a project’s answers through changes elsewhere, and retires them on its own changes', async () => {
    const { a, b, w, pageId } = await twoInstances();
    const hits = () => a.deps.pages.responseCacheStats().hits;
    const read = async () => {
      const res = await client(a.app, w.key).get(`/page/${pageId}?format=html`);
      expect(res.statusCode).toBe(200);
      return res.json<{ title: string }>();
    };
    await read();
    // Another project's page changes, through the other instance: this project's answer stays.
    const other = await createWorld(b.deps);
    const page = await client(b.app, other.key).post(`/documentation/${other.documentation.id}/page`, {
      title: 'Elsewhere',
      content: 'Other words.',
    });
    expect(page.statusCode).toBe(200);
    let before = hits();
    await read();
    expect(hits()).toBe(before + 1);
    // A change that no page answer holds (a new key) keeps it too.
    await createKey(b.deps, w.project.id);
    before = hits();
    await read();
    expect(hits()).toBe(before + 1);
    // A new page of the same project may be named by an [auto$] link: the answers are made again.
    const sibling = await client(b.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
      title: 'Sibling',
      content: 'More words.',
    });
    expect(sibling.statusCode).toBe(200);
    before = hits();
    expect((await read()).title).toBe('Cached');
    expect(hits()).toBe(before);
  });
});
