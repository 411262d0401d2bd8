import { describe, expect, it } from 'vitest';
import { auditEntries, createKey, createProject, createVersion, createWorld } from './helpers/factories.ts';
import { buildTestApp, client, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { multipart, openapiJson, openapiYaml, readDefinition, upload } from './helpers/references.ts';

const t = useTestApp();

const referenceRows = (versionId: number) =>
  t.deps.database.db.selectFrom('api_references').selectAll().where('version_id', '=', versionId).execute();

const SWAGGER_JSON = JSON.stringify({
  swagger: '2.0',
  info: { title: 'Legacy API', version: '1' },
  paths: { '/items': { get: { responses: { '200': { description: 'Items' } } } } },
});

describe('POST /version/{versionId}/reference: uploads', () => {
  it('creates a reference from a multipart YAML file (OpenAPI 3.1) with the fields of the specification', async () => {
    const w = await createWorld(t.deps);
    const res = await upload(t.app, w.key, w.version.id, openapiYaml('Pet Store'));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      title: 'Pet Store',
      created: '2026-11-21T10:15:00+0000',
      updated: '2026-11-21T10:15:00+0000',
      slug: 'pet-store',
      ordr: 1,
    });
    expect(res.headers['x-ratelimit-limit']).toBe('300');
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({
      scope: 'content',
      entity: 'reference',
      entity_id: String(res.json().id),
      operation: 'INS',
    });
    expect(JSON.parse(entry?.details ?? '{}')).toMatchObject({ publish: true, format: 'yaml' });
  });

  it.each([
    ['application/json', openapiJson('Raw JSON')],
    ['application/yaml', openapiYaml('Raw YAML')],
    ['text/yaml', openapiYaml('Raw YAML')],
  ] as const)('accepts a raw %s body', async (type, content) => {
    const w = await createWorld(t.deps);
    const res = await upload(t.app, w.key, w.version.id, content, { as: type });
    expect(res.statusCode).toBe(201);
    const read = await readDefinition(t.app, w.key, res.json().id);
    expect(read.body).toBe(content);
  });

  it('accepts Swagger 2.0 and OpenAPI 3.0 files, detecting JSON and YAML from the content, not the name', async () => {
    const w = await createWorld(t.deps);
    const swagger = await upload(t.app, w.key, w.version.id, SWAGGER_JSON, { filename: 'spec.yaml' });
    expect(swagger.statusCode).toBe(201);
    const auto = await readDefinition(t.app, w.key, swagger.json().id);
    expect(auto.headers['content-type']).toMatch(/^application\/json/);
    const v30 = await upload(t.app, w.key, w.version.id, openapiJson('Three Oh'), { filename: 'x.txt' });
    expect(v30.statusCode).toBe(201);
    expect((await referenceRows(w.version.id)).map((r) => r.format_published)).toEqual(['json', 'json']);
  });

  it('accepts the file as a plain multipart field named file, and ignores other parts', async () => {
    const w = await createWorld(t.deps);
    const body = await multipart([
      { name: 'note', content: 'ignored' },
      { name: 'other', content: 'not this one', filename: 'other.txt' },
      { name: 'file', content: openapiYaml('As Field') },
    ]);
    const res = await client(t.app, w.key).post(`/version/${w.version.id}/reference`, undefined, body);
    expect(res.statusCode).toBe(201);
    expect(res.json().title).toBe('As Field');
  });

  it('accepts `latest` for the default version', async () => {
    const w = await createWorld(t.deps);
    const res = await upload(t.app, w.key, 'latest', openapiYaml('Latest'));
    expect(res.statusCode).toBe(201);
    expect((await referenceRows(w.version.id)).map((r) => r.title)).toEqual(['Latest']);
  });
});

describe('POST /version/{versionId}/reference: matching by title', () => {
  it('updates the reference with the same info.title instead of creating another', async () => {
    const w = await createWorld(t.deps);
    const first = await upload(t.app, w.key, w.version.id, openapiYaml('Pets'));
    t.clock.advance(60_000);
    const second = await upload(t.app, w.key, w.version.id, openapiJson('Pets'), { as: 'application/json' });
    expect(second.statusCode).toBe(201);
    expect(second.json()).toMatchObject({
      id: first.json().id,
      slug: 'pets',
      ordr: 1,
      created: '2026-11-21T10:15:00+0000',
      updated: '2026-11-21T10:16:00+0000',
    });
    const rows = await referenceRows(w.version.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.format_published).toBe('json');
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({ entity: 'reference', operation: 'UPD' });
  });

  it('creates a new reference for a new title, with a slug unique in the version and the next ordr', async () => {
    const w = await createWorld(t.deps);
    await upload(t.app, w.key, w.version.id, openapiYaml('Pet Store'));
    const other = await upload(t.app, w.key, w.version.id, openapiYaml('Pet-Store'));
    expect(other.json()).toMatchObject({ title: 'Pet-Store', slug: 'pet-store-2', ordr: 2 });
    // The same title in another version is another reference.
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2' });
    const elsewhere = await upload(t.app, w.key, v2.id, openapiYaml('Pet Store'));
    expect(elsewhere.json()).toMatchObject({ slug: 'pet-store', ordr: 1 });
    expect(elsewhere.json().id).not.toBe(other.json().id);
  });

  it('creates exactly one reference when uploads of a new title race each other', async () => {
    const w = await createWorld(t.deps);
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        upload(t.app, w.key, w.version.id, openapiJson('Racing', { 'x-upload': i }), {
          as: 'application/json',
        }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(new Set(responses.map((r) => r.json().id)).size).toBe(1);
    const rows = await referenceRows(w.version.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.slug).toBe('racing');
    const entries = (await auditEntries(t.deps, w.project.id)).filter((e) => e.entity === 'reference');
    expect(entries.map((e) => e.operation).sort()).toEqual(['INS', 'UPD', 'UPD', 'UPD', 'UPD', 'UPD']);
  });
});

describe('POST /version/{versionId}/reference: permissions and scope', () => {
  it('needs reference.publish to publish and reference.edit to write a draft', async () => {
    const w = await createWorld(t.deps);
    const editor = await createKey(t.deps, w.project.id, { permissions: ['reference.edit'] });
    const publisher = await createKey(t.deps, w.project.id, { permissions: ['reference.publish'] });

    const denied = await upload(t.app, editor.key, w.version.id, openapiYaml('P'));
    expect(denied.statusCode).toBe(403);
    expect(expectErrorShape(denied).message).toBe("This API key lacks the permission 'reference.publish'.");
    expect(
      (await upload(t.app, editor.key, w.version.id, openapiYaml('P'), { publish: false })).statusCode,
    ).toBe(201);

    const noDraft = await upload(t.app, publisher.key, w.version.id, openapiYaml('P'), { publish: false });
    expect(noDraft.statusCode).toBe(403);
    expect(expectErrorShape(noDraft).message).toBe("This API key lacks the permission 'reference.edit'.");
    expect((await upload(t.app, publisher.key, w.version.id, openapiYaml('P'))).statusCode).toBe(201);
  });

  it('refuses a key without the permission before looking at the file', async () => {
    const w = await createWorld(t.deps);
    const reader = await createKey(t.deps, w.project.id, { permissions: ['reference.read'] });
    const res = await client(t.app, reader.key).post(`/version/${w.version.id}/reference`);
    expect(res.statusCode).toBe(403);
  });

  it('keeps the origin, key and rate-limit pipeline', async () => {
    const w = await createWorld(t.deps);
    expect((await upload(t.app, 'qk_unknown', w.version.id, openapiYaml('P'))).statusCode).toBe(403);
    const crossOrigin = await client(t.app, w.key).post(`/version/${w.version.id}/reference`, undefined, {
      headers: { origin: 'https://example.com' },
    });
    expect(crossOrigin.statusCode).toBe(403);
    const scaled = await buildTestApp({ env: { RATE_LIMIT_SCALE: '0.004' } });
    try {
      const w2 = await createWorld(scaled.deps);
      const statuses = [];
      for (let i = 0; i < 2; i++)
        statuses.push((await upload(scaled.app, w2.key, w2.version.id, openapiYaml('R'))).statusCode);
      expect(statuses).toEqual([201, 429]);
    } finally {
      await scaled.close();
    }
  });

  it('honours the version scope of the key (403) and hides other projects (404)', async () => {
    const w = await createWorld(t.deps);
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2' });
    const scoped = await createKey(t.deps, w.project.id, { versions: [v2.id] });
    expect((await upload(t.app, scoped.key, w.version.id, openapiYaml('S'))).statusCode).toBe(403);
    expect((await upload(t.app, scoped.key, v2.id, openapiYaml('S'))).statusCode).toBe(201);

    const other = await createProject(t.deps);
    const foreign = await createVersion(t.deps, other.id, { name: 'theirs' });
    const res = await upload(t.app, w.key, foreign.id, openapiYaml('S'));
    expect(res.statusCode).toBe(404);
    expectErrorShape(res);
    expect((await upload(t.app, w.key, 999999, openapiYaml('S'))).statusCode).toBe(404);
    expect((await referenceRows(foreign.id)).length).toBe(0);
  });
});

describe('POST /version/{versionId}/reference: request errors', () => {
  it('answers 400 when no file is sent', async () => {
    const w = await createWorld(t.deps);
    const empty = await client(t.app, w.key).post(`/version/${w.version.id}/reference`);
    expect(empty.statusCode).toBe(400);
    expect(expectErrorShape(empty).message).toMatch(/No file was uploaded.*'file'/);
    const wrongField = await multipart([{ name: 'spec', content: openapiYaml('X'), filename: 'x.yaml' }]);
    const res = await client(t.app, w.key).post(`/version/${w.version.id}/reference`, undefined, wrongField);
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toMatch(/No file was uploaded/);
    const emptyFile = await upload(t.app, w.key, w.version.id, '');
    expect(emptyFile.statusCode).toBe(400);
    expect(expectErrorShape(emptyFile).message).toBe('The file is empty.');
  });

  it('answers 400 to a bad publish flag', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).post(`/version/${w.version.id}/reference?publish=maybe`);
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toMatch(/publish/);
  });

  it('answers 415 to other body types, and only this route takes YAML or multipart', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).post(`/version/${w.version.id}/reference`, undefined, {
      payload: 'openapi: 3.0.0',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(415);
    expectErrorShape(res);
    const yamlElsewhere = await client(t.app, w.key).put(`/version/${w.version.id}`, undefined, {
      payload: 'name: x',
      headers: { 'content-type': 'application/yaml' },
    });
    expect(yamlElsewhere.statusCode).toBe(415);
    const form = await multipart([{ name: 'name', content: 'x' }]);
    const multipartElsewhere = await client(t.app, w.key).put(`/version/${w.version.id}`, undefined, form);
    expect(multipartElsewhere.statusCode).toBe(415);
    // JSON routes still parse JSON themselves.
    const json = await client(t.app, w.key).put(`/version/${w.version.id}`, { name: 'renamed' });
    expect(json.statusCode).toBe(200);
  });

  it('takes files up to 8 MiB (above the 5 MiB JSON limit) and answers 413 beyond', async () => {
    const w = await createWorld(t.deps);
    const big = openapiJson('Big', { 'x-padding': 'p'.repeat(6 * 1024 * 1024) });
    expect((await upload(t.app, w.key, w.version.id, big, { as: 'application/json' })).statusCode).toBe(201);
    expect((await upload(t.app, w.key, w.version.id, big)).statusCode).toBe(201);

    const tooBig = openapiJson('Too big', { 'x-padding': 'p'.repeat(8 * 1024 * 1024) });
    for (const as of ['multipart', 'application/json', 'text/yaml'] as const) {
      const res = await upload(t.app, w.key, w.version.id, tooBig, { as });
      expect(res.statusCode, as).toBe(413);
      expectErrorShape(res);
    }
    const asField = await multipart([{ name: 'file', content: tooBig }]);
    const field = await client(t.app, w.key).post(`/version/${w.version.id}/reference`, undefined, asField);
    expect(field.statusCode).toBe(413);
    expect((await referenceRows(w.version.id)).map((r) => r.title)).toEqual(['Big']);
  });
});
