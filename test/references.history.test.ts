import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doc } from './helpers/change-pairs.ts';
import { createWorld } from './helpers/factories.ts';
import { upload } from './helpers/references.ts';
import { buildTestApp, client, expectErrorShape, type TestApp } from './helpers/test-app.ts';

/** The history of references (decision 0033): revisions, and the change report between them. */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

const json = (value: unknown) => JSON.stringify(value);
const GET = { get: { responses: { '200': { description: 'OK' } } } };
const api = (extra: Record<string, unknown>) => json(doc({ '/pets': GET, ...extra }));
const changes = (key: string, id: number, query: string) =>
  client(t.app, key).get(`/reference/${id}/changes${query}`);
const revisions = (id: number) =>
  t.deps.database.db
    .selectFrom('reference_revisions')
    .select(['revision', 'published', 'format'])
    .where('reference_id', '=', id)
    .orderBy('revision')
    .execute();

describe('reference revisions', () => {
  it('are written by every upload and publish, and compare as the upload reported', async () => {
    const w = await createWorld(t.deps);
    const first = await upload(t.app, w.key, w.version.id, api({}), { as: 'application/json' });
    expect(first.statusCode, first.body).toBe(201);
    const id = first.json<{ id: number }>().id;
    const draft = await upload(t.app, w.key, w.version.id, api({ '/owners': GET }), {
      as: 'application/json',
      publish: false,
    });
    expect(draft.statusCode, draft.body).toBe(201);
    const published = await client(t.app, w.key).put(`/reference/${id}/publish`);
    expect(published.statusCode, published.body).toBe(200);
    expect(await revisions(id)).toEqual([
      { revision: 1, published: 1, format: 'json' },
      { revision: 2, published: 0, format: 'json' },
      { revision: 3, published: 1, format: 'json' },
    ]);

    const history = await client(t.app, w.key).get(`/reference/${id}/history`);
    expect(history.statusCode, history.body).toBe(200);
    const listed = history.json<{ data: Array<{ revision: number; published: boolean; created: string }> }>();
    expect(listed.data.map((r) => [r.revision, r.published])).toEqual([
      [3, true],
      [2, false],
      [1, true],
    ]);
    expect(listed.data[0]!.created).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(history.body).not.toContain('/owners');

    const between = await changes(w.key, id, '?from=1&to=2');
    expect(between.statusCode, between.body).toBe(200);
    expect(between.json()).toEqual(draft.json<{ changes: unknown }>().changes);
    expect(between.json<{ nonBreaking: unknown[] }>().nonBreaking).toHaveLength(1);
    // The publish stored the draft's definition as it was: nothing changed from 2 to 3.
    expect((await changes(w.key, id, '?from=2&to=3')).json()).toEqual({ breaking: [], nonBreaking: [] });
    // Revision numbers mix with the names of the current definitions.
    const back = await changes(w.key, id, '?from=published&to=1');
    expect(back.json<{ breaking: Array<{ kind: string }> }>().breaking.map((c) => c.kind)).toEqual([
      'path.removed',
    ]);
  });

  it('keeps the newest 20 per reference; an older number is a 404', async () => {
    const w = await createWorld(t.deps);
    let id = 0;
    for (let n = 1; n <= 22; n++) {
      const res = await upload(t.app, w.key, w.version.id, api({ [`/p${n}`]: GET }), {
        as: 'application/json',
      });
      expect(res.statusCode, res.body).toBe(201);
      id = res.json<{ id: number }>().id;
    }
    expect((await revisions(id)).map((r) => r.revision)).toEqual(Array.from({ length: 20 }, (_, i) => i + 3));
    const history = await client(t.app, w.key).get(`/reference/${id}/history`);
    expect(history.json<{ data: Array<{ revision: number }> }>().data.map((r) => r.revision)).toEqual(
      Array.from({ length: 20 }, (_, i) => 22 - i),
    );
    const gone = await changes(w.key, id, '?from=2&to=22');
    expect(gone.statusCode, gone.body).toBe(404);
    expect(expectErrorShape(gone).message).toBe(
      `Reference ${id} has no revision 2 (the newest 20 are kept).`,
    );
    const kept = await changes(w.key, id, '?from=3&to=22');
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json<{ breaking: unknown[] }>().breaking).toHaveLength(1);
    expect((await changes(w.key, id, '?from=23')).statusCode).toBe(404);
  });

  it('answers 400 for a from or to that is no name and no positive revision number', async () => {
    const w = await createWorld(t.deps);
    const id = (await upload(t.app, w.key, w.version.id, api({}), { as: 'application/json' })).json<{
      id: number;
    }>().id;
    for (const query of ['?from=0', '?to=-1', '?to=1.5', '?from=previous', '?from=', '?to=1e3']) {
      const res = await changes(w.key, id, query);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
      expectErrorShape(res);
    }
  });

  it('starts at revision 1 in a cloned version, the published definition before the draft', async () => {
    const w = await createWorld(t.deps);
    const first = await upload(t.app, w.key, w.version.id, api({}), { as: 'application/json' });
    const id = first.json<{ id: number }>().id;
    await upload(t.app, w.key, w.version.id, api({ '/owners': GET }), {
      as: 'application/json',
      publish: false,
    });
    const cloned = await client(t.app, w.key).post(`/version/${w.version.id}/clone`, {
      name: 'Copy',
      slug: 'copy',
    });
    expect(cloned.statusCode, cloned.body).toBe(201);
    const versionId = cloned.json<{ id: number }>().id;
    const copy = await t.deps.database.db
      .selectFrom('api_references')
      .select('id')
      .where('version_id', '=', versionId)
      .executeTakeFirstOrThrow();
    expect(copy.id).not.toBe(id);
    expect(await revisions(copy.id)).toEqual([
      { revision: 1, published: 1, format: 'json' },
      { revision: 2, published: 0, format: 'json' },
    ]);
    expect((await changes(w.key, copy.id, '?from=1&to=2')).json()).toEqual(
      (await changes(w.key, id, '?from=published&to=draft')).json(),
    );
  });

  it('lists under reference.read only the references of the project of the key', async () => {
    const w = await createWorld(t.deps);
    const other = await createWorld(t.deps);
    const id = (await upload(t.app, w.key, w.version.id, api({}), { as: 'application/json' })).json<{
      id: number;
    }>().id;
    const foreign = await client(t.app, other.key).get(`/reference/${id}/history`);
    expect(foreign.statusCode, foreign.body).toBe(404);
    expectErrorShape(foreign);
    expect((await client(t.app, w.key).get('/reference/999999/history')).statusCode).toBe(404);
    expect((await client(t.app, w.key).get('/reference/abc/history')).statusCode).toBe(400);
  });
});
