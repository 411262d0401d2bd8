import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createWorld } from './helpers/factories.ts';
import { CHANGE_PAIRS, doc } from './helpers/change-pairs.ts';
import { buildTestApp, client, expectErrorShape, type TestApp } from './helpers/test-app.ts';
import { upload } from './helpers/references.ts';

/** The API change report (extensions.md §8): on upload, and between the stored definitions. */

interface Change {
  kind: string;
  path: string;
  message: string;
}
interface Report {
  breaking: Change[];
  nonBreaking: Change[];
}

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

function expectError(res: { statusCode: number; body: string; json(): unknown }, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  return expectErrorShape(res);
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const pairsOf = (changes: Change[]) => changes.map((c) => [c.kind, c.path]);
const changes = (key: string, id: number, query = '') =>
  client(t.app, key).get(`/reference/${id}/changes${query}`);

describe('the change rules, one pair of definitions each', () => {
  it.each(CHANGE_PAIRS)('$rule', async ({ before, after, breaking, nonBreaking }) => {
    const w = await createWorld(t.deps);
    const first = await upload(t.app, w.key, w.version.id, json(before), { as: 'application/json' });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).not.toHaveProperty('changes');

    // A draft replaces no draft here: its report is against the published definition.
    const second = await upload(t.app, w.key, w.version.id, json(after), {
      as: 'application/json',
      publish: false,
    });
    expect(second.statusCode, second.body).toBe(201);
    const report = second.json<{ changes: Report }>().changes;
    expect({ breaking: pairsOf(report.breaking), nonBreaking: pairsOf(report.nonBreaking) }).toEqual({
      breaking,
      nonBreaking,
    });
    for (const change of [...report.breaking, ...report.nonBreaking]) {
      expect(change.message.length).toBeGreaterThan(5);
    }

    const read = await changes(w.key, first.json().id, '?from=published&to=draft');
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toEqual(report);
    // The other way round, what was breaking is mostly not, and the report is another.
    const back = await changes(w.key, first.json().id, '?from=draft&to=published');
    expect(back.statusCode).toBe(200);
    expect(back.json()).not.toEqual(report);
  });
});

describe('POST /version/{versionId}/reference: the report of an upload', () => {
  const v1 = doc({
    '/pets': { get: { responses: { '200': { description: 'OK' } } } },
    '/owners': { get: { responses: { '200': { description: 'OK' } } } },
  });

  it('is absent for a new reference, empty for the same file again', async () => {
    const w = await createWorld(t.deps);
    const created = await upload(t.app, w.key, w.version.id, json(v1), { as: 'application/json' });
    expect(created.statusCode).toBe(201);
    expect(Object.keys(created.json()).sort()).toEqual(['created', 'id', 'ordr', 'slug', 'title', 'updated']);
    const again = await upload(t.app, w.key, w.version.id, json(v1), { as: 'application/json' });
    expect(again.json().changes).toEqual({ breaking: [], nonBreaking: [] });
  });

  it('compares a published upload with the published definition, not the draft', async () => {
    const w = await createWorld(t.deps);
    const v2 = doc({ '/pets': { get: { responses: { '200': { description: 'OK' } } } } });
    const id = (await upload(t.app, w.key, w.version.id, json(v1), { as: 'application/json' })).json().id;
    await upload(t.app, w.key, w.version.id, json(v2), { as: 'application/json', publish: false });
    const published = await upload(t.app, w.key, w.version.id, json(v2), { as: 'application/json' });
    expect(published.json().id).toBe(id);
    expect(pairsOf(published.json<{ changes: Report }>().changes.breaking)).toEqual([
      ['path.removed', '/owners'],
    ]);
    // The published upload dropped the draft.
    expect((await changes(w.key, id)).statusCode).toBe(404);
  });

  it('reads Swagger 2.0 and OpenAPI 3.x in one form, and ignores renamed path parameters', async () => {
    const w = await createWorld(t.deps);
    const swagger = {
      swagger: '2.0',
      info: { title: 'Change pairs', version: '1' },
      paths: {
        '/pets/{id}': {
          get: {
            parameters: [{ name: 'id', in: 'path', required: true, type: 'integer' }],
            responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/Pet' } } },
          },
        },
      },
      definitions: { Pet: { type: 'object', properties: { name: { type: 'string' } } } },
    };
    const openapi = doc(
      {
        '/pets/{petId}': {
          get: {
            parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
            responses: {
              '200': {
                description: 'OK',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
              },
            },
          },
        },
      },
      { components: { schemas: { Pet: { type: 'object', properties: { name: { type: 'string' } } } } } },
    );
    await upload(t.app, w.key, w.version.id, json(swagger), { as: 'application/json' });
    const res = await upload(t.app, w.key, w.version.id, json(openapi), { as: 'application/json' });
    expect(res.json().changes).toEqual({ breaking: [], nonBreaking: [] });
  });

  it('sorts the changes by path, kind and message, the same on every run', async () => {
    const w = await createWorld(t.deps);
    const many = doc({
      '/b': { get: { responses: { '200': { description: 'OK' } } } },
      '/a': { get: { responses: { '200': { description: 'OK' } } } },
      '/c': { post: { responses: { '200': { description: 'OK' } } } },
    });
    const fewer = doc({ '/c': { get: { responses: { '200': { description: 'OK' } } } } });
    const id = (await upload(t.app, w.key, w.version.id, json(many), { as: 'application/json' })).json().id;
    await upload(t.app, w.key, w.version.id, json(fewer), { as: 'application/json', publish: false });
    const first = (await changes(w.key, id)).json<Report>();
    expect(first.breaking.map((c) => c.path)).toEqual(['/a', '/b', 'POST /c']);
    expect(first.nonBreaking.map((c) => c.path)).toEqual(['GET /c']);
    expect((await changes(w.key, id)).json()).toEqual(first);
  });

  it('reports on every upload of racing ones, each against the definition it replaced', async () => {
    const w = await createWorld(t.deps);
    const base = doc({ '/pets': { get: { responses: { '200': { description: 'OK' } } } } });
    await upload(t.app, w.key, w.version.id, json(base), { as: 'application/json' });
    const paths = ['/a', '/b', '/c', '/d', '/e'];
    const racing = await Promise.all(
      paths.map((path) =>
        upload(
          t.app,
          w.key,
          w.version.id,
          json(doc({ [path]: { get: { responses: { '200': { description: 'OK' } } } } })),
          {
            as: 'application/json',
          },
        ),
      ),
    );
    expect(racing.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
    // Each replaced another definition: the first one, or another racer's; two never the same one.
    const removed = racing.map((r, i) => {
      const { breaking, nonBreaking } = r.json<{ changes: Report }>().changes;
      expect(nonBreaking).toEqual([{ kind: 'path.added', path: paths[i], message: `new path ${paths[i]}` }]);
      expect(breaking).toHaveLength(1);
      return breaking[0]?.path;
    });
    expect(new Set(removed).size).toBe(5);
    expect(removed).toContain('/pets');
  });

  it('compares large definitions (in a worker thread) as it does small ones', async () => {
    const w = await createWorld(t.deps);
    const paths = (count: number, extra: string) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [
          `/things-${i}`,
          {
            get: {
              description: 'A thing of the large test definition, described at some length. '.repeat(4),
              responses: {
                '200': {
                  description: 'OK',
                  content: {
                    'application/json': {
                      schema: {
                        type: 'object',
                        properties: { id: { type: 'integer' }, [extra]: { type: 'string' } },
                      },
                    },
                  },
                },
              },
            },
          },
        ]),
      );
    const before = json(doc(paths(300, 'name')));
    const after = json(doc(paths(299, 'label')));
    expect(before.length).toBeGreaterThan(128 * 1024);
    const id = (await upload(t.app, w.key, w.version.id, before, { as: 'application/json' })).json().id;
    const res = await upload(t.app, w.key, w.version.id, after, { as: 'application/json', publish: false });
    const report = res.json<{ changes: Report }>().changes;
    expect(report.breaking.filter((c) => c.kind === 'path.removed').map((c) => c.path)).toEqual([
      '/things-299',
    ]);
    expect(report.breaking.filter((c) => c.kind === 'response-property.removed')).toHaveLength(299);
    expect(report.nonBreaking.filter((c) => c.kind === 'response-property.added')).toHaveLength(299);
    expect(report.breaking).toHaveLength(300);
    expect((await changes(w.key, id)).json()).toEqual(report);
  });
});

describe('GET /reference/{id}/changes', () => {
  it('defaults to published → draft, under reference.read and its own rate limit', async () => {
    const w = await createWorld(t.deps);
    const id = (await upload(t.app, w.key, w.version.id, json(doc({})), { as: 'application/json' })).json()
      .id;
    const draft = doc({ '/new': { get: { responses: { '200': { description: 'OK' } } } } });
    const res0 = await upload(t.app, w.key, w.version.id, json(draft), {
      as: 'application/json',
      publish: false,
    });
    expect(res0.statusCode, res0.body).toBe(201);
    const reader = await createKey(t.deps, w.project.id, { permissions: ['reference.read'] });
    const res = await changes(reader.key, id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      breaking: [],
      nonBreaking: [{ kind: 'path.added', path: '/new', message: 'new path /new' }],
    });
    expect(res.headers['x-ratelimit-limit']).toBe('600');

    const other = await createKey(t.deps, w.project.id, { permissions: ['page.read'] });
    expectError(await changes(other.key, id), 403);
  });

  it('answers 404 for a definition the reference does not have, or a reference of another project', async () => {
    const w = await createWorld(t.deps);
    const id = (await upload(t.app, w.key, w.version.id, json(doc({})), { as: 'application/json' })).json()
      .id;
    const noDraft = await changes(w.key, id);
    expectError(noDraft, 404);
    expect(noDraft.json().error.message).toBe(`Reference ${id} has no draft definition.`);

    const draftOnly = await upload(
      t.app,
      w.key,
      w.version.id,
      json({ ...doc({}), info: { title: 'Draft only', version: '1' } }),
      { as: 'application/json', publish: false },
    );
    const unpublished = await changes(w.key, draftOnly.json().id);
    expectError(unpublished, 404);
    expect(unpublished.json().error.message).toBe(
      `Reference ${draftOnly.json().id} has no published definition.`,
    );
    expect((await changes(w.key, draftOnly.json().id, '?from=draft&to=draft')).json()).toEqual({
      breaking: [],
      nonBreaking: [],
    });

    const stranger = await createWorld(t.deps);
    expectError(await changes(stranger.key, id), 404);
  });

  it('answers 400 for a from or to that names no stored definition', async () => {
    const w = await createWorld(t.deps);
    const id = (await upload(t.app, w.key, w.version.id, json(doc({})), { as: 'application/json' })).json()
      .id;
    for (const query of ['?from=previous', '?to=0', '?from=']) {
      const res = await changes(w.key, id, query);
      expectError(res, 400);
      expect(res.body).toMatch(/published\|draft/);
    }
  });
});
