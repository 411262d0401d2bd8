import { describe, expect, it } from 'vitest';
import {
  auditEntries,
  createCategory,
  createDocumentation,
  createKey,
  createVersion,
  createWorld,
  PAGE_FIELDS,
  pageHistory,
} from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

const history = (pageId: number) => pageHistory(t.deps, pageId);

/** The section's index: categories and pages in position order. */
async function index(documentationId: number): Promise<string[]> {
  const db = t.deps.database.db;
  const pages = await db
    .selectFrom('pages')
    .select(['title', 'position', 'category_id'])
    .where('documentation_id', '=', documentationId)
    .execute();
  const categories = await db
    .selectFrom('categories')
    .select(['title', 'position'])
    .where('documentation_id', '=', documentationId)
    .execute();
  const entries = [
    ...pages.map((p) => ({ label: `page:${p.title}`, position: p.position })),
    ...categories.map((c) => ({ label: `category:${c.title}`, position: c.position })),
  ].sort((a, b) => a.position - b.position);
  expect(new Set(entries.map((e) => e.position)).size).toBe(entries.length);
  return entries.map((e) => e.label);
}

describe('POST /documentation/{id}/page', () => {
  it('creates an unlisted draft page with every field of the specification, its history and its audit entry', async () => {
    const w = await createWorld(t.deps);
    const content = '## Start\r\n\r\nTrailing  \nÜnïcödé ✓ $inline[badge,New,success]\n';
    const res = await client(t.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
      title: 'Getting Started',
      content,
    });
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page).toEqual({
      id: expect.any(Number) as number,
      listed: false,
      title: 'Getting Started',
      created: '2026-11-21T10:15:00+0000',
      updated: '2026-11-21T10:15:00+0000',
      slug: 'getting-started',
      contentDraft: content,
      contentPublished: null,
      path: 'v1/guides/getting-started',
    });
    expect(Object.keys(page)).toEqual([...PAGE_FIELDS]);

    const [entry] = await history(page.id);
    expect(entry).toMatchObject({
      operation: 'create',
      message: 'Created using API',
      title: 'Getting Started',
      slug: 'getting-started',
      content_draft: content,
      content_published: null,
      api_key_id: w.keyId,
      created: '2026-11-21T10:15:00.000Z',
    });
    const [audit] = await auditEntries(t.deps, w.project.id);
    expect(audit).toMatchObject({
      scope: 'content',
      entity: 'page',
      entity_id: String(page.id),
      operation: 'INS',
      api_key_label: `${w.keyId} API key`,
    });
    expect(audit?.message).toContain('Getting Started');
  });

  it('keeps the message given in the history', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
      title: 'Notes',
      content: 'x',
      message: 'Imported from the wiki',
    });
    const [entry] = await history(res.json().id);
    expect(entry?.message).toBe('Imported from the wiki');
  });

  it('names the missing or invalid field in a 400', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const url = `/documentation/${w.documentation.id}/page`;
    const cases: Array<[unknown, string]> = [
      [{ content: 'x' }, 'body.title'],
      [{ title: 'T' }, 'body.content'],
      [{ title: '', content: 'x' }, 'body.title'],
      [{ title: '   ', content: 'x' }, 'body.title'],
      [{ title: 'T', content: 42 }, 'body.content'],
      [{ title: 'T', content: 'x', slug: 'Not A Slug' }, 'body.slug'],
      [{ title: 'T', content: 'x', slug: '' }, 'body.slug'],
      [{ title: 'T', content: 'x', message: '' }, 'body.message'],
    ];
    for (const [payload, field] of cases) {
      const res = await api.post(url, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const error = expectErrorShape(res);
      expect(error.details).toEqual([{ field, message: expect.any(String) as string }]);
      expect(error.message).toContain(field);
    }
    expect(await t.deps.database.db.selectFrom('pages').select('id').execute()).toEqual([]);
  });

  it('answers 400 to malformed JSON and 415 to another content type', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const url = `/documentation/${w.documentation.id}/page`;
    const malformed = await api.post(url, '{"title":', { headers: { 'content-type': 'application/json' } });
    expect(malformed.statusCode).toBe(400);
    expectErrorShape(malformed);
    const text = await api.post(url, 'title=T', { headers: { 'content-type': 'text/plain' } });
    expect(text.statusCode).toBe(415);
    expect(expectErrorShape(text).message).toBe(
      "Unsupported content-type 'text/plain'. Supported content-type is 'application/json'.",
    );
    const charset = await api.post(url, JSON.stringify({ title: 'T', content: 'x' }), {
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.statusCode).toBe(200);
  });

  it('folds accents and numbers generated slugs in the section; other sections are independent', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const url = `/documentation/${w.documentation.id}/page`;
    const slugs: string[] = [];
    for (const title of ['Über uns', 'Über  Uns!', 'über-uns', '¿Qué pasa?', '***']) {
      const res = await api.post(url, { title, content: 'x' });
      expect(res.statusCode).toBe(200);
      slugs.push(res.json().slug);
    }
    expect(slugs).toEqual(['uber-uns', 'uber-uns-2', 'uber-uns-3', 'que-pasa', 'page']);
    const other = await createDocumentation(t.deps, w.version.id, { slug: 'api' });
    const res = await api.post(`/documentation/${other.id}/page`, { title: 'Über uns', content: 'x' });
    expect(res.json()).toMatchObject({ slug: 'uber-uns', path: 'v1/api/uber-uns' });
  });

  it('uses an explicit slug, and answers 409 when the section already has it', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const url = `/documentation/${w.documentation.id}/page`;
    const first = await api.post(url, { title: 'One', content: 'x', slug: 'intro' });
    expect(first.json().slug).toBe('intro');
    const taken = await api.post(url, { title: 'Two', content: 'x', slug: 'intro' });
    expect(taken.statusCode).toBe(409);
    expect(expectErrorShape(taken).message).toContain("'intro'");
    const generated = await api.post(url, { title: 'Intro', content: 'x' });
    expect(generated.json().slug).toBe('intro-2');
  });

  it('gives two concurrent creates with the same title different slugs', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const url = `/documentation/${w.documentation.id}/page`;
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => api.post(url, { title: 'Race Condition', content: `#${i}` })),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    const slugs = results.map((r) => r.json().slug as string).sort();
    expect(slugs).toEqual(['race-condition', 'race-condition-2', 'race-condition-3', 'race-condition-4']);
    expect(await index(w.documentation.id)).toHaveLength(4);
  });

  it('answers one of two concurrent creates with the same explicit slug with 409, and keeps the index whole', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const url = `/documentation/${w.documentation.id}/page`;
    await createCategory(t.deps, w.documentation.id, 'Basics');
    await createCategory(t.deps, w.documentation.id, 'Later');
    const results = await Promise.all([
      api.post(url, { title: 'A', content: 'x', slug: 'same' }),
      api.post(url, { title: 'B', content: 'x', slug: 'same' }),
      api.post(url, { title: 'C', content: 'x', categoryTitle: 'basics' }),
      api.post(url, { title: 'D', content: 'x', categoryTitle: 'basics' }),
    ]);
    expect(
      results
        .slice(0, 2)
        .map((r) => r.statusCode)
        .sort(),
    ).toEqual([200, 409]);
    expect(results.slice(2).map((r) => r.statusCode)).toEqual([200, 200]);
    const entries = await index(w.documentation.id);
    expect(entries.slice(0, 3)).toEqual([
      'category:Basics',
      expect.stringMatching(/^page:[CD]$/),
      expect.stringMatching(/^page:[CD]$/),
    ]);
    expect(entries[3]).toBe('category:Later');
  });

  it('answers creates sent at once into one section each for itself: one that fails fails alone', async () => {
    // Those that arrive while a create runs share the next transaction; the taken slug fails that
    // transaction, and its creates are written again one by one.
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const url = `/documentation/${w.documentation.id}/page`;
    await createCategory(t.deps, w.documentation.id, 'Basics');
    const first = await api.post(url, { title: 'Taken', content: 'x', slug: 'taken' });
    expect(first.statusCode).toBe(200);
    const bodies = Array.from({ length: 13 }, (_, i) =>
      i === 6
        ? { title: 'Late', content: 'x', slug: 'taken' }
        : { title: 'Burst', content: `#${i}`, ...(i % 4 === 3 ? { categoryTitle: 'basics' } : {}) },
    );
    const results = await Promise.all(bodies.map((body) => api.post(url, body)));
    expect(results.map((r) => r.statusCode)).toEqual(bodies.map((_, i) => (i === 6 ? 409 : 200)));
    expect(expectErrorShape(results[6]!).message).toContain("'taken'");

    const created = results
      .filter((r) => r.statusCode === 200)
      .map((r) => r.json<{ id: number; slug: string }>());
    expect(created.map((p) => p.slug).sort()).toEqual(
      ['burst', ...Array.from({ length: 11 }, (_, i) => `burst-${i + 2}`)].sort(),
    );
    // Every page is where its answer says, once, with one revision and one audit entry.
    const entries = await index(w.documentation.id);
    expect(entries).toHaveLength(1 + 1 + 12);
    expect(entries.slice(0, 4)).toEqual(['category:Basics', 'page:Burst', 'page:Burst', 'page:Burst']);
    for (const page of created) {
      expect((await history(page.id)).map((h) => h.operation)).toEqual(['create']);
      const read = await api.get(`/page/${page.id}`);
      expect(read.json()).toMatchObject({ id: page.id, slug: page.slug, title: 'Burst' });
    }
    const audited = (await auditEntries(t.deps, w.project.id)).filter((e) => e.entity === 'page');
    expect(audited.map((e) => Number(e.entity_id)).sort((a, b) => a - b)).toEqual(
      [first.json<{ id: number }>().id, ...created.map((p) => p.id)].sort((a, b) => a - b),
    );
  });

  it('places creates sent at once after everything in the section, in the order they were written', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const url = `/documentation/${w.documentation.id}/page`;
    expect((await api.post(url, { title: 'Head', content: 'x' })).statusCode).toBe(200);
    await createCategory(t.deps, w.documentation.id, 'Tail');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api.post(url, { title: `Page ${i}`, content: `#${i}`, ...(i === 4 ? { slug: 'chosen' } : {}) }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array.from({ length: 10 }, () => 200));
    const pages = results.map((r) => r.json<{ id: number; slug: string; title: string }>());
    expect(pages.map((p) => p.slug)).toEqual(
      Array.from({ length: 10 }, (_, i) => (i === 4 ? 'chosen' : `page-${i}`)),
    );
    const byId = [...pages].sort((a, b) => a.id - b.id).map((p) => `page:${p.title}`);
    expect(await index(w.documentation.id)).toEqual(['page:Head', 'category:Tail', ...byId]);
    for (const page of pages) {
      expect((await history(page.id)).map((h) => h.operation)).toEqual(['create']);
    }
  });

  it('appends to the end of the index, or after the last page of the category named (any case)', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const url = `/documentation/${w.documentation.id}/page`;
    await createCategory(t.deps, w.documentation.id, 'Basics');
    await api.post(url, { title: 'B1', content: 'x', categoryTitle: 'Basics' });
    await createCategory(t.deps, w.documentation.id, 'Advanced Topics');
    await createCategory(t.deps, w.documentation.id, 'Empty');
    await api.post(url, { title: 'Loose', content: 'x' });

    const b2 = await api.post(url, { title: 'B2', content: 'x', categoryTitle: 'bASICS' });
    expect(b2.statusCode).toBe(200);
    const a1 = await api.post(url, { title: 'A1', content: 'x', categoryTitle: 'ADVANCED topics' });
    expect(a1.statusCode).toBe(200);
    await api.post(url, { title: 'E1', content: 'x', categoryTitle: 'empty' });
    expect(await index(w.documentation.id)).toEqual([
      'category:Basics',
      'page:B1',
      'page:B2',
      'category:Advanced Topics',
      'page:A1',
      'category:Empty',
      'page:E1',
      'page:Loose',
    ]);
    const row = await t.deps.database.db
      .selectFrom('pages')
      .select('category_id')
      .where('id', '=', b2.json().id as number)
      .executeTakeFirstOrThrow();
    expect(row.category_id).not.toBeNull();
  });

  it('answers 400 naming categoryTitle when no category of the section matches', async () => {
    const w = await createWorld(t.deps);
    const other = await createDocumentation(t.deps, w.version.id);
    await createCategory(t.deps, other.id, 'Elsewhere');
    const res = await client(t.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
      title: 'T',
      content: 'x',
      categoryTitle: 'Elsewhere',
    });
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).details).toEqual([
      { field: 'body.categoryTitle', message: expect.stringContaining('no category') as string },
    ]);
  });

  it('answers 403 without page.edit or outside the key versions, 404 for unknown and foreign sections', async () => {
    const w = await createWorld(t.deps);
    const body = { title: 'T', content: 'x' };
    const reader = await createKey(t.deps, w.project.id, { permissions: ['page.read', 'page.publish'] });
    const denied = await client(t.app, reader.key).post(`/documentation/${w.documentation.id}/page`, body);
    expect(denied.statusCode).toBe(403);
    expect(expectErrorShape(denied).message).toContain('page.edit');

    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2' });
    const scoped = await createKey(t.deps, w.project.id, { versions: [v2.id] });
    const outOfScope = await client(t.app, scoped.key).post(
      `/documentation/${w.documentation.id}/page`,
      body,
    );
    expect(outOfScope.statusCode).toBe(403);

    const api = client(t.app, w.key);
    expect((await api.post('/documentation/999999/page', body)).statusCode).toBe(404);
    expect((await api.post('/documentation/abc/page', body)).statusCode).toBe(400);
    const foreign = await createWorld(t.deps);
    const res = await api.post(`/documentation/${foreign.documentation.id}/page`, body);
    expect(res.statusCode).toBe(404);
    expectErrorShape(res);
    expect(await t.deps.database.db.selectFrom('pages').select('id').execute()).toEqual([]);
  });

  it('answers 403 without a key', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app).post(`/documentation/${w.documentation.id}/page`, {
      title: 'T',
      content: 'x',
    });
    expect(res.statusCode).toBe(403);
    expect(expectErrorShape(res).message).toBe('No API Key was provided.');
  });
});
