import { describe, expect, it } from 'vitest';
import { auditEntries, createKey, createVersion, createWorld, pageHistory } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

const history = (pageId: number) => pageHistory(t.deps, pageId);

async function world() {
  const w = await createWorld(t.deps);
  const api = client(t.app, w.key);
  const create = async (title: string, content = 'Draft v1', slug?: string): Promise<number> => {
    const res = await api.post(`/documentation/${w.documentation.id}/page`, {
      title,
      content,
      ...(slug ? { slug } : {}),
    });
    expect(res.statusCode).toBe(200);
    return res.json().id as number;
  };
  return { ...w, api, create };
}

describe('PUT /page/{id}', () => {
  it('writes the draft, keeps the published content and absent fields, and records history and audit', async () => {
    const w = await world();
    const id = await w.create('Setup', 'first');
    await w.api.put(`/page/${id}/publish`);
    t.clock.advance(60_000);
    const res = await w.api.put(`/page/${id}`, { content: 'second' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id,
      listed: true,
      title: 'Setup',
      created: '2026-11-21T10:15:00+0000',
      updated: '2026-11-21T10:16:00+0000',
      slug: 'setup',
      contentDraft: 'second',
      contentPublished: 'first',
      path: 'v1/guides/setup',
    });
    const entries = await history(id);
    expect(entries.map((e) => [e.operation, e.message])).toEqual([
      ['create', 'Created using API'],
      ['publish', 'Published using API'],
      ['update', 'Updated using API'],
    ]);
    expect(entries[2]).toMatchObject({
      title: 'Setup',
      slug: 'setup',
      content_draft: 'second',
      content_published: 'first',
      api_key_id: w.keyId,
    });
    const [audit] = await auditEntries(t.deps, w.project.id);
    expect(audit).toMatchObject({
      scope: 'content',
      entity: 'page',
      entity_id: String(id),
      operation: 'UPD',
    });
  });

  it('regenerates the slug from a new title, unique in the section, unless a slug is given', async () => {
    const w = await world();
    await w.create('Install');
    const id = await w.create('Setup');
    const renamed = await w.api.put(`/page/${id}`, { title: 'Install', message: 'Renamed' });
    expect(renamed.json()).toMatchObject({
      title: 'Install',
      slug: 'install-2',
      contentDraft: 'Draft v1',
      path: 'v1/guides/install-2',
    });
    expect((await history(id)).at(-1)).toMatchObject({ message: 'Renamed', slug: 'install-2' });

    const same = await w.api.put(`/page/${id}`, { title: 'Install' });
    expect(same.json().slug).toBe('install-2');
    const accents = await w.api.put(`/page/${id}`, { title: 'Größe & Ümlaut' });
    expect(accents.json().slug).toBe('grosse-umlaut');
    const both = await w.api.put(`/page/${id}`, { title: 'Anything', slug: 'chosen' });
    expect(both.json()).toMatchObject({ title: 'Anything', slug: 'chosen' });
    const slugOnly = await w.api.put(`/page/${id}`, { slug: 'chosen-again' });
    expect(slugOnly.json()).toMatchObject({ title: 'Anything', slug: 'chosen-again' });
  });

  it('gives two pages renamed at once to the same title different slugs', async () => {
    const w = await world();
    const [a, b] = [await w.create('First'), await w.create('Second')];
    const results = await Promise.all([
      w.api.put(`/page/${a}`, { title: 'Same Name' }),
      w.api.put(`/page/${b}`, { title: 'Same Name' }),
    ]);
    expect(results.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(results.map((r) => r.json().slug as string).sort()).toEqual(['same-name', 'same-name-2']);
  });

  it('keeps the slug when the title does not change, even a numbered one', async () => {
    const w = await world();
    await w.create('FAQ');
    const id = await w.create('FAQ', 'x');
    const res = await w.api.put(`/page/${id}`, { title: 'FAQ', content: 'y' });
    expect(res.json()).toMatchObject({ slug: 'faq-2', contentDraft: 'y' });
  });

  it('keeps a hand-picked slug when the same title is sent again', async () => {
    const w = await world();
    const id = await w.create('Foo', 'x', 'custom');
    const res = await w.api.put(`/page/${id}`, { title: 'Foo', content: 'y' });
    expect(res.json()).toMatchObject({ slug: 'custom', path: 'v1/guides/custom', contentDraft: 'y' });
    const renamed = await w.api.put(`/page/${id}`, { title: 'Bar' });
    expect(renamed.json()).toMatchObject({ slug: 'bar' });
  });

  it('answers 409 for a slug of another page of the section; its own slug is no conflict', async () => {
    const w = await world();
    await w.create('Taken', 'x', 'taken');
    const id = await w.create('Mine', 'x', 'mine');
    const conflict = await w.api.put(`/page/${id}`, { slug: 'taken' });
    expect(conflict.statusCode).toBe(409);
    expectErrorShape(conflict);
    const own = await w.api.put(`/page/${id}`, { slug: 'mine', title: 'Mine, renamed' });
    expect(own.statusCode).toBe(200);
    expect(own.json().slug).toBe('mine');
    expect((await history(id)).map((e) => e.operation)).toEqual(['create', 'update']);
  });

  it('rejects an empty body, bad fields and other content types', async () => {
    const w = await world();
    const id = await w.create('Page');
    const cases: Array<[unknown, string]> = [
      [{}, 'body'],
      [{ message: 'only a message' }, 'body'],
      [{ title: '' }, 'body.title'],
      [{ title: ' ' }, 'body.title'],
      [{ slug: 'UPPER' }, 'body.slug'],
      [{ content: null }, 'body.content'],
    ];
    for (const [payload, field] of cases) {
      const res = await w.api.put(`/page/${id}`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(expectErrorShape(res).details).toEqual([{ field, message: expect.any(String) as string }]);
    }
    const noBody = await w.api.put(`/page/${id}`);
    expect(noBody.statusCode).toBe(400);
    const text = await w.api.put(`/page/${id}`, 'content', { headers: { 'content-type': 'text/plain' } });
    expect(text.statusCode).toBe(415);
    expectErrorShape(text);
    expect(await history(id)).toHaveLength(1);
  });

  it('answers 404 for unknown and foreign pages, 403 without page.edit or outside the key versions', async () => {
    const w = await world();
    const id = await w.create('Page');
    expect((await w.api.put('/page/999999', { title: 'x' })).statusCode).toBe(404);
    const foreign = await createWorld(t.deps);
    const res = await client(t.app, foreign.key).put(`/page/${id}`, { title: 'x' });
    expect(res.statusCode).toBe(404);
    expect(expectErrorShape(res).message).toBe(`Page ${id} not found.`);

    const publisher = await createKey(t.deps, w.project.id, { permissions: ['page.publish', 'page.read'] });
    expect((await client(t.app, publisher.key).put(`/page/${id}`, { title: 'x' })).statusCode).toBe(403);
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2' });
    const scoped = await createKey(t.deps, w.project.id, { versions: [v2.id] });
    expect((await client(t.app, scoped.key).put(`/page/${id}`, { title: 'x' })).statusCode).toBe(403);
    expect((await history(id)).map((e) => e.title)).toEqual(['Page']);
  });
});

describe('PUT /page/{id}/publish', () => {
  it('publishes the draft: listed, contentPublished = draft, contentDraft null, with history and audit', async () => {
    const w = await world();
    const id = await w.create('Release Notes', '## 1.0');
    t.clock.advance(1000);
    const res = await w.api.put(`/page/${id}/publish`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id,
      listed: true,
      contentDraft: null,
      contentPublished: '## 1.0',
      updated: '2026-11-21T10:15:01+0000',
    });
    const entries = await history(id);
    expect(entries.at(-1)).toMatchObject({
      operation: 'publish',
      message: 'Published using API',
      content_draft: null,
      content_published: '## 1.0',
      api_key_id: w.keyId,
    });
    const [audit] = await auditEntries(t.deps, w.project.id);
    expect(audit).toMatchObject({
      entity: 'page',
      entity_id: String(id),
      operation: 'UPD',
      scope: 'content',
    });
    expect(audit?.message).toContain('published');
  });

  it('succeeds and changes nothing when there is no pending draft', async () => {
    const w = await world();
    const id = await w.create('Stable', 'v1');
    const first = await w.api.put(`/page/${id}/publish`);
    t.clock.advance(60_000);
    const again = await w.api.put(`/page/${id}/publish`);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect((await history(id)).map((e) => e.operation)).toEqual(['create', 'publish']);
  });

  it('publishes the next draft over the previous published content', async () => {
    const w = await world();
    const id = await w.create('Cycle', 'one');
    await w.api.put(`/page/${id}/publish`);
    await w.api.put(`/page/${id}`, { content: 'two' });
    const res = await w.api.put(`/page/${id}/publish`);
    expect(res.json()).toMatchObject({ contentDraft: null, contentPublished: 'two', listed: true });
  });

  it('accepts an empty body of any type, and needs page.publish', async () => {
    const w = await world();
    const id = await w.create('Typed');
    const typed = await w.api.put(`/page/${id}/publish`, '', { headers: { 'content-type': 'text/plain' } });
    expect(typed.statusCode).toBe(200);
    const editor = await createKey(t.deps, w.project.id, { permissions: ['page.edit', 'page.read'] });
    const denied = await client(t.app, editor.key).put(`/page/${id}/publish`);
    expect(denied.statusCode).toBe(403);
    expect(expectErrorShape(denied).message).toContain('page.publish');
    expect((await w.api.put('/page/999999/publish')).statusCode).toBe(404);
    const foreign = await createWorld(t.deps);
    expect((await client(t.app, foreign.key).put(`/page/${id}/publish`)).statusCode).toBe(404);
  });
});

describe('PUT /page/{id}/publish and PUT /reference/{id}/publish: no body', () => {
  it('ignore the type of whatever is sent, an empty or malformed one included (decisions §4)', async () => {
    const w = await world();
    const id = await w.create('Typed');
    for (const [type, payload] of [
      ['', undefined],
      [' ', undefined],
      [';', undefined],
      ['application', 'q'],
      ['invalid type', 'zz'],
      ['application/json, text/plain', undefined],
      ['text/plain', 'anything'],
    ] as const) {
      const res = await w.api.put(`/page/${id}/publish`, undefined, {
        headers: { 'content-type': type },
        ...(payload !== undefined ? { payload } : {}),
      });
      expect(res.statusCode, JSON.stringify(type)).toBe(200);
    }
    // The path is validated as usual, whatever the type.
    const bad = await w.api.put('/reference/-3/publish', undefined, { headers: { 'content-type': '' } });
    expect(bad.statusCode).toBe(400);
    expect(expectErrorShape(bad).message).toBe('Invalid request: path.id must be >= 1');
  });
});
