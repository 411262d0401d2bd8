import { describe, expect, it } from 'vitest';
import {
  auditEntries,
  createDocumentation,
  createKey,
  createVersion,
  createWorld,
} from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

describe('GET /version', () => {
  it('lists non-deleted versions in ordr order with every field of the specification', async () => {
    const w = await createWorld(t.deps);
    const v2 = await createVersion(t.deps, w.project.id, { name: 'Version Zwei', published: false });
    const res = await client(t.app, w.key).get('/version');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        id: w.version.id,
        published: true,
        name: 'v1',
        created: '2026-11-21T10:15:00+0000',
        updated: '2026-11-21T10:15:00+0000',
        slug: 'v1',
        ordr: 1,
      },
      {
        id: v2.id,
        published: false,
        name: 'Version Zwei',
        created: '2026-11-21T10:15:00+0000',
        updated: '2026-11-21T10:15:00+0000',
        slug: 'version-zwei',
        ordr: 2,
      },
    ]);
  });

  it('lists only the versions in the key scope', async () => {
    const w = await createWorld(t.deps);
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2' });
    const scoped = await createKey(t.deps, w.project.id, { versions: [v2.id] });
    const res = await client(t.app, scoped.key).get('/version');
    expect(res.json().map((v: { id: number }) => v.id)).toEqual([v2.id]);
  });
});

describe('PUT /version/{id}', () => {
  it('updates name, slug and published, writes an audit entry, and moves updated', async () => {
    const w = await createWorld(t.deps);
    t.clock.advance(60_000);
    const res = await client(t.app, w.key).put(`/version/${w.version.id}`, {
      name: 'One',
      slug: 'one',
      published: false,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: w.version.id,
      name: 'One',
      slug: 'one',
      published: false,
      updated: '2026-11-21T10:16:00+0000',
    });
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({
      scope: 'content',
      entity: 'version',
      entity_id: String(w.version.id),
      operation: 'UPD',
    });
    expect(entry?.api_key_label).toBe(`${w.keyId} API key`);
  });

  it('rejects an empty body, a bad slug, a taken slug, an unknown id and another project', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const empty = await api.put(`/version/${w.version.id}`, {});
    expect(empty.statusCode).toBe(400);
    expectErrorShape(empty);
    const bad = await api.put(`/version/${w.version.id}`, { slug: 'Not A Slug' });
    expect(bad.statusCode).toBe(400);
    expect(expectErrorShape(bad).details).toEqual([
      { field: 'body.slug', message: expect.any(String) as string },
    ]);
    const other = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2' });
    const taken = await api.put(`/version/${w.version.id}`, { slug: other.slug });
    expect(taken.statusCode).toBe(409);
    expect((await api.put('/version/999999', { name: 'x' })).statusCode).toBe(404);
    const blank = await api.put(`/version/${w.version.id}`, { name: '   ' });
    expect(expectErrorShape(blank).details).toEqual([{ field: 'body.name', message: 'must not be blank' }]);
    const reserved = await api.put(`/version/${w.version.id}`, { slug: 'latest' });
    expect(reserved.statusCode).toBe(400);
    expect(expectErrorShape(reserved).details).toEqual([
      { field: 'body.slug', message: "must not be 'latest': it names the default version" },
    ]);
    const foreign = await createWorld(t.deps);
    expect((await api.put(`/version/${foreign.version.id}`, { name: 'x' })).statusCode).toBe(404);
  });
});

describe('version slugs', () => {
  it("never generates the reserved slug 'latest'", async () => {
    const w = await createWorld(t.deps);
    const latest = await createVersion(t.deps, w.project.id, { name: 'Latest' });
    expect(latest.slug).toBe('latest-2');
  });
});

describe('GET /version/{versionId}/documentation', () => {
  it('lists the sections of the version in order', async () => {
    const w = await createWorld(t.deps);
    const second = await createDocumentation(t.deps, w.version.id, { title: 'API Über', published: false });
    const res = await client(t.app, w.key).get(`/version/${w.version.id}/documentation`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        id: w.documentation.id,
        title: 'Guides',
        published: true,
        created: '2026-11-21T10:15:00+0000',
        updated: '2026-11-21T10:15:00+0000',
        slug: 'guides',
        ordr: 1,
      },
      {
        id: second.id,
        title: 'API Über',
        published: false,
        created: '2026-11-21T10:15:00+0000',
        updated: '2026-11-21T10:15:00+0000',
        slug: 'api-uber',
        ordr: 2,
      },
    ]);
  });
});
