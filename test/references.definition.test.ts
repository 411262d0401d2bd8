import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditEntries, createKey, createProject, createVersion, createWorld } from './helpers/factories.ts';
import { buildTestApp, client, expectErrorShape, type TestApp } from './helpers/test-app.ts';
import { openapiJson, openapiYaml, readDefinition, upload } from './helpers/references.ts';

let t: TestApp;
let w: Awaited<ReturnType<typeof createWorld>>;
beforeEach(async () => {
  t = await buildTestApp();
  w = await createWorld(t.deps);
});
afterEach(async () => {
  await t.close();
});

async function uploaded(content: string | Buffer, publish = true): Promise<number> {
  const res = await upload(t.app, w.key, w.version.id, content, { publish });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}

const publish = (id: number, key = w.key) => client(t.app, key).put(`/reference/${id}/publish`);

describe('drafts and publishing', () => {
  it('writes only the draft with publish=false; PUT publish makes it the published definition', async () => {
    const id = await uploaded(openapiYaml('Drafted'), false);
    const unpublished = await readDefinition(t.app, w.key, id);
    expect(unpublished.statusCode).toBe(404);
    expectErrorShape(unpublished);
    expect((await readDefinition(t.app, w.key, id, { draft: true })).body).toBe(openapiYaml('Drafted'));

    t.clock.advance(60_000);
    const res = await publish(id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id,
      title: 'Drafted',
      created: '2026-11-21T10:15:00+0000',
      updated: '2026-11-21T10:16:00+0000',
      slug: 'drafted',
      ordr: 1,
    });
    expect((await readDefinition(t.app, w.key, id)).body).toBe(openapiYaml('Drafted'));
    const noDraft = await readDefinition(t.app, w.key, id, { draft: true });
    expect(noDraft.statusCode).toBe(404);
    expect(expectErrorShape(noDraft).message).toBe('Draft not found');
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({ entity: 'reference', entity_id: String(id), operation: 'UPD' });
    expect(entry?.message).toMatch(/published/);
  });

  it('takes an empty body with any content type, as every bodyless operation does', async () => {
    const id = await uploaded(openapiYaml('Bodyless'), false);
    const res = await client(t.app, w.key).put(`/reference/${id}/publish`, undefined, {
      payload: '',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('answers 400 to publishing without a draft', async () => {
    const id = await uploaded(openapiYaml('Published'));
    const res = await publish(id);
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toBe(`Reference ${id} has no draft to publish.`);
  });

  it('publishes a draft once when two publishes race; the other answers 400', async () => {
    const draft = openapiYaml('Raced');
    const id = await uploaded(draft, false);
    const statuses = (await Promise.all([publish(id), publish(id), publish(id)])).map((r) => r.statusCode);
    expect(statuses.sort()).toEqual([200, 400, 400]);
    expect((await readDefinition(t.app, w.key, id)).body).toBe(draft);
  });

  it('keeps the published definition while a draft is written, and clears the draft on publish=true', async () => {
    const v1 = openapiJson('Evolving', { 'x-rev': 1 });
    const v2 = openapiJson('Evolving', { 'x-rev': 2 });
    const v3 = openapiJson('Evolving', { 'x-rev': 3 });
    const id = await uploaded(v1);
    expect(await uploaded(v2, false)).toBe(id);
    expect((await readDefinition(t.app, w.key, id)).body).toBe(v1);
    expect((await readDefinition(t.app, w.key, id, { draft: true })).body).toBe(v2);
    expect(await uploaded(v3)).toBe(id);
    expect((await readDefinition(t.app, w.key, id)).body).toBe(v3);
    expect((await readDefinition(t.app, w.key, id, { draft: true })).statusCode).toBe(404);
  });

  it('needs reference.publish to publish and reference.read to read', async () => {
    const id = await uploaded(openapiYaml('Guarded'), false);
    const editor = await createKey(t.deps, w.project.id, { permissions: ['reference.edit'] });
    const denied = await publish(id, editor.key);
    expect(denied.statusCode).toBe(403);
    expect(expectErrorShape(denied).message).toBe("This API key lacks the permission 'reference.publish'.");
    const noRead = await readDefinition(t.app, editor.key, id, { draft: true });
    expect(noRead.statusCode).toBe(403);
    expect(expectErrorShape(noRead).message).toBe("This API key lacks the permission 'reference.read'.");
  });

  it("answers 404 for another project's reference and 403 outside the key's versions", async () => {
    const id = await uploaded(openapiYaml('Mine'), false);
    const other = await createProject(t.deps);
    const stranger = await createKey(t.deps, other.id);
    expect((await publish(id, stranger.key)).statusCode).toBe(404);
    expect((await readDefinition(t.app, stranger.key, id, { draft: true })).statusCode).toBe(404);
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2' });
    const scoped = await createKey(t.deps, w.project.id, { versions: [v2.id] });
    expect((await publish(id, scoped.key)).statusCode).toBe(403);
    expect((await readDefinition(t.app, scoped.key, id, { draft: true })).statusCode).toBe(403);
    expect((await publish(987654)).statusCode).toBe(404);
    expect((await readDefinition(t.app, w.key, 987654)).statusCode).toBe(404);
  });
});

describe('GET /reference/{id}/definition formats', () => {
  it('auto returns a YAML file byte for byte as application/yaml (comments, CRLF, BOM, non-ASCII)', async () => {
    const yaml = `\uFEFF# Überblick\r\n${openapiYaml('Café — API').replace(/\n/g, '\r\n')}  # trailing\r\n`;
    const bytes = Buffer.from(yaml, 'utf8');
    const id = await uploaded(bytes);
    const res = await readDefinition(t.app, w.key, id);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/yaml; charset=utf-8');
    expect(res.rawPayload.equals(bytes)).toBe(true);
    expect((await readDefinition(t.app, w.key, id, { format: 'yaml' })).rawPayload.equals(bytes)).toBe(true);
  });

  it('auto returns a JSON file byte for byte as application/json, not re-serialised', async () => {
    const json =
      '{"openapi":"3.0.3",  "info":{"title":"Spaced","version":"1"},\n\t"paths":{}, "x-n": 1.50}\n';
    const id = await uploaded(json);
    const res = await readDefinition(t.app, w.key, id);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe(json);
    expect((await readDefinition(t.app, w.key, id, { format: 'json' })).body).toBe(json);
  });

  it('converts YAML to JSON keeping key order, integer-like keys included', async () => {
    const id = await uploaded(openapiYaml('Ordered'));
    const res = await readDefinition(t.app, w.key, id, { format: 'json' });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toContain('"404": {\n            "description": "None"\n          },\n          "200"');
    expect(Object.keys(res.json())).toEqual(['openapi', 'info', 'paths']);
    expect(res.json().info).toEqual({ title: 'Ordered', version: '2.0' });
  });

  it('converts JSON to YAML keeping key order and every value', async () => {
    // Written out by hand: a JS object would put the integer-like keys first.
    const text = [
      '{',
      '  "openapi": "3.0.3",',
      '  "info": {"version": "1.0", "title": "Reordered", "x-unknown": {"zeta": 1, "alpha": [true, null, "yes"]}},',
      '  "paths": {',
      '    "/b": {"get": {"responses": {',
      '      "default": {"description": "d"}, "404": {"description": "n"}, "200": {"description": "o"}',
      '    }}},',
      '    "/a": {}',
      '  },',
      '  "x-number-like": "010"',
      '}',
    ].join('\n');
    const id = await uploaded(text);
    const res = await readDefinition(t.app, w.key, id, { format: 'yaml' });
    expect(res.headers['content-type']).toBe('application/yaml; charset=utf-8');
    expect(parseYaml(res.body)).toEqual(JSON.parse(text));
    const order = [
      'version:',
      'title:',
      'zeta:',
      'alpha:',
      '/b:',
      'default:',
      '"404":',
      '"200":',
      '/a:',
      'x-number-like: "010"',
    ];
    const positions = order.map((s) => res.body.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('keeps unknown keys in every format (no response schema strips them)', async () => {
    const text = openapiJson('Extended', { 'x-vendor': { nested: { deep: 'kept' } }, 'x-top': 'kept' });
    const id = await uploaded(text);
    for (const format of ['auto', 'json'] as const) {
      const body = (await readDefinition(t.app, w.key, id, { format })).json();
      expect(body['x-vendor']).toEqual({ nested: { deep: 'kept' } });
      expect(body['x-top']).toBe('kept');
    }
    const yaml = parseYaml((await readDefinition(t.app, w.key, id, { format: 'yaml' })).body) as Record<
      string,
      unknown
    >;
    expect(yaml['x-vendor']).toEqual({ nested: { deep: 'kept' } });
  });

  it('reads the draft in every format', async () => {
    const id = await uploaded(openapiYaml('Draft Formats'), false);
    const json = await readDefinition(t.app, w.key, id, { draft: true, format: 'json' });
    expect(json.json().info.title).toBe('Draft Formats');
    expect((await readDefinition(t.app, w.key, id, { draft: true, format: 'auto' })).body).toBe(
      openapiYaml('Draft Formats'),
    );
  });

  it('answers 400 to an unknown format or draft flag', async () => {
    const id = await uploaded(openapiYaml('Query'));
    const res = await client(t.app, w.key).get(`/reference/${id}/definition?format=xml`);
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).details).toEqual([
      { field: 'query.format', message: 'must be one of auto, yaml, json' },
    ]);
    expect((await client(t.app, w.key).get(`/reference/${id}/definition?draft=perhaps`)).statusCode).toBe(
      400,
    );
  });
});
