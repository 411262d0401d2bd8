import type { KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { checkAnswers } from './helpers/answer-check.ts';
import { AllService } from '../src/modules/all/all.service.ts';
import { openapiYaml, upload } from './helpers/references.ts';
import {
  createDocumentation,
  createKey,
  createProject,
  createVersion,
  createWorld,
  insertPageRow,
} from './helpers/factories.ts';
import { client, dialectName, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

const NOW = '2026-11-21T10:15:00+0000';
const STORED_NOW = '2026-11-21T10:15:00.000Z';
let seq = 0;

// The page and reference APIs are other modules; these rows are written straight to their tables.
const insertPage = (documentationId: number, input: Parameters<typeof insertPageRow>[2] = {}) =>
  insertPageRow(t.deps, documentationId, input);

async function insertReference(
  versionId: number,
  input: { title?: string; slug?: string; published?: boolean; deleted?: boolean; ordr?: number } = {},
): Promise<number> {
  const n = ++seq;
  const row = await t.deps.database.db
    .insertInto('api_references')
    .values({
      version_id: versionId,
      title: input.title ?? `Reference ${n}`,
      slug: input.slug ?? `reference-${n}`,
      ordr: input.ordr ?? n,
      published: input.published === false ? 0 : 1,
      definition_published: '{"openapi":"3.0.0"}',
      format_published: 'json',
      definition_draft: null,
      format_draft: null,
      deleted_at: input.deleted ? STORED_NOW : null,
      created: STORED_NOW,
      updated: STORED_NOW,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function softDelete(table: 'versions' | 'documentation', id: number): Promise<void> {
  await t.deps.database.db.updateTable(table).set({ deleted_at: STORED_NOW }).where('id', '=', id).execute();
}

interface AllBody {
  page: Record<string, { documentationId: number }>;
  documentation: Record<string, { versionId: number }>;
  reference: Record<string, { versionId: number }>;
  version: Record<string, unknown>;
}

type Kind = 'page' | 'documentation' | 'reference' | 'version';
type Ids = Record<Kind, number[]>;
const KINDS: readonly Kind[] = ['page', 'documentation', 'reference', 'version'];
const EMPTY = { page: {}, documentation: {}, reference: {}, version: {} };
const noIds = (): Ids => ({ page: [], documentation: [], reference: [], version: [] });
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

/** Compares the ids of all four dictionaries with the expected ones (a kind left out: none). */
function expectIds(body: AllBody, expected: Partial<Ids>): void {
  const actual = Object.fromEntries(KINDS.map((k) => [k, sorted(Object.keys(body[k]).map(Number))]));
  expect(actual).toEqual(Object.fromEntries(KINDS.map((k) => [k, sorted(expected[k] ?? [])])));
}

async function getAll(key: string, query = '') {
  const res = await client(t.app, key).get(`/all${query}`);
  expect(res.statusCode).toBe(200);
  return res.json<AllBody>();
}

describe('GET /all', () => {
  it('answers four dictionaries keyed by id with the item shapes of the decisions', async () => {
    const w = await createWorld(t.deps);
    const draftVersion = await createVersion(t.deps, w.project.id, {
      name: 'Next',
      slug: 'next',
      published: false,
    });
    const api = await createDocumentation(t.deps, draftVersion.id, {
      title: 'API',
      slug: 'api',
      published: false,
    });
    const intro = await insertPage(w.documentation.id, { title: 'Intro', slug: 'intro' });
    const hidden = await insertPage(w.documentation.id, {
      title: 'Hidden',
      slug: 'hidden',
      listed: false,
      updated: '2026-11-22T08:00:05.123Z',
    });
    const auth = await insertPage(api.id, { title: 'Auth', slug: 'auth' });
    const ref = await insertReference(w.version.id, { title: 'Pets API', slug: 'pets', ordr: 1 });
    const draftRef = await insertReference(draftVersion.id, {
      title: 'Draft API',
      slug: 'draft',
      ordr: 1,
      published: false,
    });

    const res = await client(t.app, w.key).get('/all');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      page: {
        [intro]: {
          title: 'Intro',
          slug: 'intro',
          path: 'v1/guides/intro',
          documentationId: w.documentation.id,
          listed: true,
          updated: NOW,
        },
        [hidden]: {
          title: 'Hidden',
          slug: 'hidden',
          path: 'v1/guides/hidden',
          documentationId: w.documentation.id,
          listed: false,
          updated: '2026-11-22T08:00:05+0000',
        },
        [auth]: {
          title: 'Auth',
          slug: 'auth',
          path: 'next/api/auth',
          documentationId: api.id,
          listed: true,
          updated: NOW,
        },
      },
      documentation: {
        [w.documentation.id]: {
          title: 'Guides',
          slug: 'guides',
          versionId: w.version.id,
          published: true,
          ordr: 1,
        },
        [api.id]: { title: 'API', slug: 'api', versionId: draftVersion.id, published: false, ordr: 1 },
      },
      reference: {
        [ref]: { title: 'Pets API', slug: 'pets', versionId: w.version.id, published: true, ordr: 1 },
        [draftRef]: {
          title: 'Draft API',
          slug: 'draft',
          versionId: draftVersion.id,
          published: false,
          ordr: 1,
        },
      },
      version: {
        [w.version.id]: { name: 'v1', slug: 'v1', published: true, ordr: 1 },
        [draftVersion.id]: { name: 'Next', slug: 'next', published: false, ordr: 2 },
      },
    });
    expect(res.body).not.toContain('Draft body');
    expect(res.headers['x-ratelimit-limit']).toBe('30');
  });

  it('answers empty dictionaries for a project without versions', async () => {
    const project = await createProject(t.deps);
    const { key } = await createKey(t.deps, project.id);
    expect(await getAll(key)).toEqual(EMPTY);
  });

  it('leaves out deleted rows, the children of deleted parents, and other projects', async () => {
    const w = await createWorld(t.deps);
    const kept = await insertPage(w.documentation.id);
    await insertPage(w.documentation.id, { deleted: true });
    const keptRef = await insertReference(w.version.id);
    await insertReference(w.version.id, { deleted: true });
    const gone = await createDocumentation(t.deps, w.version.id);
    await insertPage(gone.id);
    await softDelete('documentation', gone.id);
    const goneVersion = await createVersion(t.deps, w.project.id);
    const goneSection = await createDocumentation(t.deps, goneVersion.id);
    await insertPage(goneSection.id);
    await insertReference(goneVersion.id);
    await softDelete('versions', goneVersion.id);
    const other = await createWorld(t.deps);
    await insertPage(other.documentation.id);
    await insertReference(other.version.id);

    expectIds(await getAll(w.key), {
      page: [kept],
      reference: [keptRef],
      documentation: [w.documentation.id],
      version: [w.version.id],
    });
  });

  it('with published=true keeps only what readers can see, for every combination of unpublished parents', async () => {
    const project = await createProject(t.deps, { access: 'invite' });
    const { key } = await createKey(t.deps, project.id);
    const visible = noIds();
    const every = noIds();
    for (const versionPublished of [true, false]) {
      const version = await createVersion(t.deps, project.id, { published: versionPublished });
      every.version.push(version.id);
      if (versionPublished) visible.version.push(version.id);
      for (const refPublished of [true, false]) {
        const ref = await insertReference(version.id, { published: refPublished });
        every.reference.push(ref);
        if (versionPublished && refPublished) visible.reference.push(ref);
      }
      for (const sectionPublished of [true, false]) {
        const section = await createDocumentation(t.deps, version.id, { published: sectionPublished });
        every.documentation.push(section.id);
        if (versionPublished && sectionPublished) visible.documentation.push(section.id);
        for (const listed of [true, false]) {
          const page = await insertPage(section.id, { listed });
          every.page.push(page);
          if (versionPublished && sectionPublished && listed) visible.page.push(page);
        }
      }
    }
    expect(visible.page).toHaveLength(1);

    expectIds(await getAll(key, '?published=true'), visible);
    for (const query of ['', '?published=false']) expectIds(await getAll(key, query), every);
  });

  it('limits the listing to one version with versionId', async () => {
    const w = await createWorld(t.deps);
    const page = await insertPage(w.documentation.id);
    const ref = await insertReference(w.version.id);
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2', published: false });
    const s2 = await createDocumentation(t.deps, v2.id);
    const p2 = await insertPage(s2.id);
    const r2 = await insertReference(v2.id);

    expectIds(await getAll(w.key, `?versionId=${v2.id}`), {
      version: [v2.id],
      documentation: [s2.id],
      page: [p2],
      reference: [r2],
    });
    expectIds(await getAll(w.key, `?versionId=${w.version.id}&published=true`), {
      version: [w.version.id],
      documentation: [w.documentation.id],
      page: [page],
      reference: [ref],
    });
    // An unpublished version exists, so it is no 404; readers just see nothing of it.
    expect(await getAll(w.key, `?versionId=${v2.id}&published=true`)).toEqual(EMPTY);
  });

  it('resolves versionId=latest to the first published version in ordr order', async () => {
    const project = await createProject(t.deps);
    const { key } = await createKey(t.deps, project.id);
    const v1 = await createVersion(t.deps, project.id, { name: 'one', published: false });
    const v2 = await createVersion(t.deps, project.id, { name: 'two', published: true });
    const v3 = await createVersion(t.deps, project.id, { name: 'three', published: true });
    const s2 = await createDocumentation(t.deps, v2.id);
    const p2 = await insertPage(s2.id);
    await insertPage((await createDocumentation(t.deps, v3.id)).id);

    expectIds(await getAll(key, '?versionId=latest'), {
      version: [v2.id],
      documentation: [s2.id],
      page: [p2],
    });

    const publish = await client(t.app, key).put(`/version/${v1.id}`, { published: true });
    expect(publish.statusCode).toBe(200);
    expectIds(await getAll(key, '?versionId=latest&published=true'), { version: [v1.id] });
  });

  it('answers 404 for an unknown, deleted or foreign version, and for latest without a published one', async () => {
    const w = await createWorld(t.deps);
    const deleted = await createVersion(t.deps, w.project.id);
    await softDelete('versions', deleted.id);
    const other = await createWorld(t.deps);
    for (const id of [999999, deleted.id, other.version.id]) {
      const res = await client(t.app, w.key).get(`/all?versionId=${id}`);
      expect(res.statusCode).toBe(404);
      expect(expectErrorShape(res).message).toContain(String(id));
    }
    const bare = await createProject(t.deps);
    await createVersion(t.deps, bare.id, { published: false });
    const { key } = await createKey(t.deps, bare.id);
    const none = await client(t.app, key).get('/all?versionId=latest');
    expect(none.statusCode).toBe(404);
    expectErrorShape(none);
  });

  it.each([
    ['versionId=abc', 'query.versionId'],
    ['versionId=0', 'query.versionId'],
    ['versionId=-3', 'query.versionId'],
    ['versionId=1.5', 'query.versionId'],
    ['versionId=LATEST', 'query.versionId'],
    ['versionId=', 'query.versionId'],
    ['versionId=99999999999', 'query.versionId'],
    ['published=maybe', 'query.published'],
    ['published=', 'query.published'],
  ])('answers 400 with details for %s', async (query, field) => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).get(`/all?${query}`);
    expect(res.statusCode).toBe(400);
    const error = expectErrorShape(res);
    expect(error.details).toEqual(expect.arrayContaining([{ field, message: expect.any(String) as string }]));
  });

  it("honours the key's version scope: other versions are left out, naming one is 403", async () => {
    const w = await createWorld(t.deps);
    await insertPage(w.documentation.id);
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', published: true });
    const s2 = await createDocumentation(t.deps, v2.id);
    const p2 = await insertPage(s2.id);
    const r2 = await insertReference(v2.id);
    await insertReference(w.version.id);
    const scoped = await createKey(t.deps, w.project.id, { versions: [v2.id] });

    expectIds(await getAll(scoped.key), {
      version: [v2.id],
      documentation: [s2.id],
      page: [p2],
      reference: [r2],
    });

    const named = await client(t.app, scoped.key).get(`/all?versionId=${w.version.id}`);
    expect(named.statusCode).toBe(403);
    expectErrorShape(named);
    // The default version (v1) is outside the scope too.
    expect((await client(t.app, scoped.key).get('/all?versionId=latest')).statusCode).toBe(403);

    const nothing = await createKey(t.deps, w.project.id, { versions: [] });
    expect(await getAll(nothing.key)).toEqual(EMPTY);
  });

  it('answers 403 without project.read and 429 after 30 requests in an hour', async () => {
    const w = await createWorld(t.deps);
    const noRead = await createKey(t.deps, w.project.id, { permissions: ['page.read', 'access.read'] });
    const denied = await client(t.app, noRead.key).get('/all');
    expect(denied.statusCode).toBe(403);
    expect(expectErrorShape(denied).message).toContain('project.read');
    const api = client(t.app, w.key);
    for (let i = 0; i < 30; i++) expect((await api.get('/all')).statusCode).toBe(200);
    const limited = await api.get('/all');
    expect(limited.statusCode).toBe(429);
    expectErrorShape(limited);
  });

  it('runs one query per resource kind, however many items there are', async () => {
    let queries = 0;
    // Counted as they return: a subquery is transformed on its own too, but not executed.
    const counter: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: (args) => {
        queries++;
        return Promise.resolve(args.result);
      },
    };
    const counted = new AllService(t.deps.database.db.withPlugin(counter), t.deps.versions);
    const app = await buildApp({ ...t.deps, all: counted }, { logger: false, instrument: checkAnswers() });
    try {
      const w = await createWorld(t.deps);
      await insertPage(w.documentation.id);
      await insertReference(w.version.id);
      const count = async (query: string) => {
        queries = 0;
        const res = await client(app, w.key).get(`/all${query}`);
        expect(res.statusCode).toBe(200);
        return queries;
      };
      // The audit position that the entity tag is derived from, then the four kinds; on PostgreSQL
      // also the pages table's id span, which decides whether pages are written in ranges
      // (test/all.parts.test.ts): these tables are too small for it.
      const kinds = dialectName === 'postgres' ? 6 : 5;
      expect(await count('')).toBe(kinds);
      for (let v = 0; v < 3; v++) {
        const version = await createVersion(t.deps, w.project.id);
        await insertReference(version.id);
        for (let s = 0; s < 3; s++) {
          const section = await createDocumentation(t.deps, version.id);
          for (let p = 0; p < 5; p++) await insertPage(section.id);
        }
      }
      expect(await count('')).toBe(kinds);
      expect(await count('?published=true')).toBe(kinds);
      // Plus the one that resolves the named version.
      expect(await count(`?versionId=${w.version.id}`)).toBe(kinds + 1);

      // A client holding the current answer costs the tag's reads only: nothing is listed.
      const current = await client(app, w.key).get('/all');
      const conditional = async (query: string, etag: string | undefined) => {
        queries = 0;
        const res = await client(app, w.key).get(`/all${query}`, {
          headers: { 'if-none-match': etag ?? '' },
        });
        expect(res.statusCode).toBe(304);
        return queries;
      };
      expect(await conditional('', current.headers.etag)).toBe(1);
      const one = await client(app, w.key).get(`/all?versionId=${w.version.id}`);
      expect(await conditional(`?versionId=${w.version.id}`, one.headers.etag)).toBe(2);
    } finally {
      await app.close();
    }
  });

  it('is described in the OpenAPI document with its query and dictionary response', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const doc = res.json<{
      paths: Record<string, Record<string, { parameters?: Array<{ name?: string; $ref?: string }> }>>;
      components: { schemas: Record<string, unknown> };
    }>();
    const op = doc.paths['/all']?.get;
    expect(op?.parameters?.map((p) => p.name ?? p.$ref).sort()).toEqual([
      '#/components/parameters/IfNoneMatch',
      'published',
      'versionId',
    ]);
    // The answer is a named component; its dictionaries (keyed by id) are maps, not fixed fields.
    const ref = /"\$ref":"#\/components\/schemas\/([^"]+)"/.exec(JSON.stringify(op))?.[1];
    expect(ref).toBeDefined();
    expect(JSON.stringify(doc.components.schemas[ref!])).toContain('additionalProperties');
    expect(Object.keys(doc.paths['/reader-access'] ?? {}).sort()).toEqual(['get', 'patch', 'post']);
  });
});

describe('GET /all parameter errors', () => {
  it('reports a versionId that is neither an id nor latest as one detail', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).get('/all?versionId=abc');
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).details).toEqual([
      { field: 'query.versionId', message: 'must be integer or must be "latest"' },
    ]);
  });
});

describe('GET /all entity tags', () => {
  const getAll304 = (key: string, query: string, etag: string) =>
    client(t.app, key).get(`/all${query}`, { headers: { 'if-none-match': etag } });
  const etagOf = (res: { headers: Record<string, unknown> }): string => {
    const etag = res.headers.etag;
    expect(typeof etag).toBe('string');
    return etag as string;
  };

  it('answers 304 without a body to a request naming the current tag, and counts it against the limit', async () => {
    const w = await createWorld(t.deps);
    await insertPage(w.documentation.id, { title: 'Intro' });
    const api = client(t.app, w.key);
    const first = await api.get('/all');
    expect(first.statusCode).toBe(200);
    const etag = etagOf(first);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);

    const again = await api.get('/all');
    expect(again.statusCode).toBe(200);
    expect(etagOf(again)).toBe(etag);
    expect(again.body).toBe(first.body);

    for (const given of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await getAll304(w.key, '', given);
      expect(res.statusCode).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
      expect(etagOf(res)).toBe(etag);
      expect(res.headers['x-ratelimit-limit']).toBe('30');
    }
    const stale = await getAll304(w.key, '', '"stale"');
    expect(stale.statusCode).toBe(200);
    expect(stale.body).toBe(first.body);

    // 7 requests so far; a 304 takes one of the 30 an hour like any other answer.
    for (let i = 7; i < 30; i++) expect((await getAll304(w.key, '', etag)).statusCode).toBe(304);
    const limited = await getAll304(w.key, '', etag);
    expect(limited.statusCode).toBe(429);
    expectErrorShape(limited);
  });

  it('changes the tag with every change to the listing made through the API, and only then', async () => {
    const w = await createWorld(t.deps);
    const other = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const ok = async (res: Promise<{ statusCode: number; body: string }>) => {
      const done = await res;
      expect([200, 201], done.body).toContain(done.statusCode);
      return JSON.parse(done.body) as { id: number };
    };
    const page = await ok(
      api.post(`/documentation/${w.documentation.id}/page`, { title: 'Walruses', content: 'Hi' }),
    );
    const sibling = await ok(
      api.post(`/documentation/${w.documentation.id}/page`, { title: 'Seals', content: 'Hi' }),
    );

    // Readers of the listing, made before the first tag (a new key is a change), taken in turn so
    // that none reaches the 30 an hour.
    const readers: string[] = [];
    for (let i = 0; i < 3; i++) readers.push((await createKey(t.deps, w.project.id)).key);
    let turn = 0;
    const read = (etag?: string) => getAll304(readers[turn++ % readers.length]!, '', etag ?? '"none"');

    const first = await read();
    let etag = etagOf(first);
    let body = first.body;
    const seen = new Set([etag]);
    const expectChanged = async (label: string, answerChanges = true) => {
      const res = await read(etag);
      expect(res.statusCode, label).toBe(200);
      const next = etagOf(res);
      expect(seen.has(next), label).toBe(false);
      if (answerChanges) expect(res.body, label).not.toBe(body);
      seen.add(next);
      etag = next;
      body = res.body;
      // Then stable again while nothing changes.
      expect((await read(etag)).statusCode, label).toBe(304);
    };

    // A change in another project is no change here.
    await ok(client(t.app, other.key).put(`/version/${other.version.id}`, { name: 'elsewhere' }));
    expect((await read(etag)).statusCode).toBe(304);

    await ok(api.post(`/documentation/${w.documentation.id}/page`, { title: 'Otters', content: 'Hi' }));
    await expectChanged('page created');
    await ok(api.put(`/page/${page.id}`, { title: 'Walrus' }));
    await expectChanged('page title');
    await ok(api.put(`/page/${page.id}`, { slug: 'walrus-page' }));
    await expectChanged('page slug');
    await ok(api.put(`/page/${page.id}`, { listed: true }));
    await expectChanged('page listed');
    await ok(api.put(`/page/${sibling.id}`, { parentId: page.id }));
    await expectChanged('page parent and order', false);
    await ok(api.put(`/page/${page.id}/publish`));
    await expectChanged('page published', false);
    await ok(api.delete(`/page/${page.id}`));
    await expectChanged('page deleted');
    await ok(api.post(`/page/${page.id}/restore`));
    await expectChanged('page restored');
    await ok(api.put(`/documentation/${w.documentation.id}`, { title: 'Handbook' }));
    await expectChanged('section title');
    const section = await ok(api.post(`/version/${w.version.id}/documentation`, { title: 'Recipes' }));
    await expectChanged('section created');
    await ok(api.put(`/documentation/${section.id}`, { ordr: 0 }));
    await expectChanged('section order');
    await ok(api.put(`/documentation/${section.id}`, { published: true }));
    await expectChanged('section published');
    await ok(api.delete(`/documentation/${section.id}`));
    await expectChanged('section deleted');
    await ok(upload(t.app, w.key, w.version.id, openapiYaml('Pets API'), { publish: false }));
    await expectChanged('reference uploaded');
    await ok(upload(t.app, w.key, w.version.id, openapiYaml('Pets API'), { publish: true }));
    await expectChanged('reference published');
    await ok(api.put(`/version/${w.version.id}`, { name: 'v1.0' }));
    await expectChanged('version name');
    const version = await ok(api.post('/version', { name: 'v2' }));
    await expectChanged('version created');
    await ok(api.put(`/version/${version.id}`, { published: true }));
    await expectChanged('version published');
    await ok(api.delete(`/version/${version.id}`));
    await expectChanged('version deleted');
  });

  it('differs between queries and key scopes, which answer differently', async () => {
    const w = await createWorld(t.deps);
    await insertPage(w.documentation.id);
    await insertPage(w.documentation.id, { listed: false });
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', published: true });
    await insertPage((await createDocumentation(t.deps, v2.id)).id);
    const scoped = await createKey(t.deps, w.project.id, { versions: [v2.id] });
    const none = await createKey(t.deps, w.project.id, { versions: [] });
    const answers = [
      [w.key, ''],
      [w.key, '?published=true'],
      [w.key, `?versionId=${w.version.id}`],
      [w.key, `?versionId=${v2.id}`],
      [scoped.key, ''],
      [none.key, ''],
    ] as const;
    // Made first: making a key is a change of the project (an audit entry), which moves the tags.
    const twin = await createKey(t.deps, w.project.id);
    const tags: string[] = [];
    for (const [key, query] of answers) {
      const res = await client(t.app, key).get(`/all${query}`);
      expect(res.statusCode).toBe(200);
      tags.push(etagOf(res));
    }
    expect(new Set(tags).size).toBe(answers.length);
    // A tag of one answer is no proof of holding another.
    const [first, second] = tags;
    expect((await getAll304(w.key, '?published=true', first!)).statusCode).toBe(200);
    expect((await getAll304(scoped.key, '', first!)).statusCode).toBe(200);
    expect((await getAll304(w.key, '?published=true', second!)).statusCode).toBe(304);
    // The same answer for the same query and scope, whichever key asks.
    expect((await getAll304(twin.key, '', first!)).statusCode).toBe(304);
  });

  it('writes text that is exactly the serialised dictionaries, ids ascending, any characters escaped', async () => {
    const w = await createWorld(t.deps);
    const second = await createDocumentation(t.deps, w.version.id, {
      title: 'Other "section"',
      slug: 'other',
    });
    const titles = [
      'Quotes " and \\ backslash',
      'Line\nbreak\tand \u0001 control',
      'Separators \u2028 \u2029 and </script><script>alert(1)</script>',
      'Emoji 🦭, accents éà, \u007f and \ufeff',
      'Plain',
      'Plain too',
    ];
    const ids: number[] = [];
    // Alternating between two sections, so that the rows of a section are not those of the id order.
    for (const [i, title] of titles.entries()) {
      ids.push(await insertPage(i % 2 === 0 ? second.id : w.documentation.id, { title }));
    }
    await insertReference(w.version.id, { title: 'Ref "one"' });
    const res = await client(t.app, w.key).get('/all');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const parsed = res.json<{ page: Record<string, { title: string; path: string }> }>();
    for (const [i, id] of ids.entries()) {
      expect(parsed.page[id]?.title).toBe(titles[i]);
    }
    expect(parsed.page[ids[0]!]?.path).toMatch(/^v1\/other\/page-\d+$/);
    // JSON.stringify writes integer keys in ascending order; the answer's text must be the same.
    expect(res.body).toBe(JSON.stringify(parsed));
    const order = [
      ...res.body.matchAll(/"(\d+)":\{"title":"(?:[^"\\]|\\.)*","slug":"(?:[^"\\]|\\.)*","path"/g),
    ].map((m) => Number(m[1]));
    expect(order).toEqual(sorted(ids));
  });
});
