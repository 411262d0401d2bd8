import { describe, expect, it } from 'vitest';
import { adminContext, createKey, createProject, createUser, createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

interface AuditList {
  data: Array<Record<string, unknown> & { id: number; scope: string; timestamp: string }>;
  count: number;
  total: number;
  cursor: string | null;
}

/** A world whose log holds, newest first: `renames` version updates (content), a key (security), the world's own entries. */
async function worldWithLog(renames = 3) {
  const w = await createWorld(t.deps);
  const user = await createUser(t.deps, w.project.id, { email: 'ann@example.com' });
  const hers = await createKey(t.deps, w.project.id, { userId: user.id, name: 'CI' });
  const api = client(t.app, hers.key);
  for (let i = 1; i <= renames; i++) {
    t.clock.advance(60_000);
    const res = await api.put(
      `/version/${w.version.id}`,
      { name: `v1 rename ${i}` },
      { remoteAddress: '10.0.0.9' },
    );
    expect(res.statusCode).toBe(200);
  }
  return { ...w, user, hers, api };
}

const list = async (key: string, query = '') => {
  const res = await client(t.app, key).get(`/audit${query}`);
  expect(res.statusCode).toBe(200);
  return res.json<AuditList>();
};

describe('GET /audit', () => {
  it('lists content entries newest first, each with every field', async () => {
    const w = await worldWithLog(2);
    const body = await list(w.key);
    // content: two renames, the section and the version of the world
    expect(body.total).toBe(4);
    expect(body.count).toBe(4);
    expect(body.cursor).toBeNull();
    expect(body.data.every((e) => e.scope === 'content')).toBe(true);
    expect(body.data[0]).toEqual({
      id: expect.any(Number) as number,
      timestamp: '2026-11-21T10:17:00+0000',
      scope: 'content',
      entity: 'version',
      entityId: String(w.version.id),
      operation: 'UPD',
      message: "Version 'v1 rename 2' updated",
      details: expect.objectContaining({ source: 'api' }) as object,
      ipAddress: '10.0.0.9',
      user: `${w.user.id} ann@example.com`,
      apiKey: `${w.hers.id} CI`,
    });
    expect(body.data.map((e) => e.id)).toEqual([...body.data.map((e) => e.id)].sort((a, b) => b - a));
  });

  it('reads scopes in all three forms, and refuses an unknown one', async () => {
    const w = await worldWithLog(1);
    const forms = [
      '?scopes[]=content&scopes[]=security',
      '?scopes=content&scopes=security',
      '?scopes=content,security',
    ];
    const totals = await Promise.all(forms.map(async (q) => (await list(w.key, q)).total));
    // content 3 (1 rename, section, version) + security 2 (two keys)
    expect(totals).toEqual([5, 5, 5]);
    expect((await list(w.key, '?scopes=users')).data.map((e) => e.entity)).toEqual(['user']);
    const bad = await client(t.app, w.key).get('/audit?scopes=content,money');
    expect(bad.statusCode).toBe(400);
    expect(expectErrorShape(bad).details).toEqual([
      { field: 'query.scopes', message: expect.stringContaining('money') as string },
    ]);
  });

  it('pages with a cursor that stays stable while new entries arrive', async () => {
    const w = await worldWithLog(5);
    const first = await list(w.key, '?hits=3');
    expect(first).toMatchObject({ count: 3, total: 7 });
    expect(first.cursor).toEqual(expect.any(String));
    // A change between pages must not shift the next page.
    await w.api.put(`/version/${w.version.id}`, { name: 'newest' });
    const second = await list(w.key, `?hits=3&cursor=${first.cursor}`);
    expect(second.count).toBe(3);
    expect(second.total).toBe(8);
    expect(Math.max(...second.data.map((e) => e.id))).toBeLessThan(Math.min(...first.data.map((e) => e.id)));
    const third = await list(w.key, `?hits=3&cursor=${second.cursor}`);
    expect(third.count).toBe(1);
    expect(third.cursor).toBeNull();
    const seen = [...first.data, ...second.data, ...third.data].map((e) => e.id);
    expect(new Set(seen).size).toBe(7);
  });

  it('answers 400 to a cursor it did not give, an id beyond the 32-bit range included', async () => {
    const w = await worldWithLog(1);
    for (const raw of ['before:2147483648', 'before:9999999999', 'after:1', 'before:', 'garbage']) {
      const cursor = Buffer.from(raw, 'utf8').toString('base64url');
      const res = await w.api.get(`/audit?cursor=${cursor}`);
      expect(res.statusCode, raw).toBe(400);
      expect(expectErrorShape(res).details, raw).toEqual([
        { field: 'query.cursor', message: 'is not a cursor this API gave' },
      ]);
    }
    const highest = Buffer.from('before:2147483647', 'utf8').toString('base64url');
    expect((await w.api.get(`/audit?cursor=${highest}`)).statusCode).toBe(200);
  });

  it('keeps entries at or before max_date, in every accepted date form', async () => {
    const w = await worldWithLog(3);
    // renames at 10:16, 10:17, 10:18; the world's entries at 10:15
    for (const date of [
      '2026-11-21T10:16:00%2B00:00',
      '2026-11-21T10:16:00+00:00',
      '2026-11-21T10:16:00Z',
      '2026-11-21T11:16:00%2B0100',
    ]) {
      const body = await list(w.key, `?max_date=${date}`);
      expect(body.total, date).toBe(3);
      expect(body.data[0]?.timestamp, date).toBe('2026-11-21T10:16:00+0000');
    }
    const bad = await client(t.app, w.key).get('/audit?max_date=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(expectErrorShape(bad).details).toEqual([
      { field: 'query.max_date', message: expect.any(String) as string },
    ]);
  });

  it('refuses hits above 100 or below 1, and a cursor it did not give', async () => {
    const w = await worldWithLog(0);
    for (const q of ['?hits=101', '?hits=0', '?hits=abc', '?cursor=not-a-cursor']) {
      const res = await client(t.app, w.key).get(`/audit${q}`);
      expect(res.statusCode, q).toBe(400);
      expectErrorShape(res);
    }
    expect((await list(w.key, '?hits=100')).count).toBe(2);
  });

  it('is for enterprise plans only, and needs audit.read', async () => {
    const project = await createProject(t.deps, { plan: 'grow' });
    const { key } = await createKey(t.deps, project.id);
    const res = await client(t.app, key).get('/audit');
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toMatch(/enterprise/);
    const w = await createWorld(t.deps);
    const reader = await createKey(t.deps, w.project.id, { permissions: ['project.read'] });
    const denied = await client(t.app, reader.key).get('/audit');
    expect(denied.statusCode).toBe(403);
    expect(expectErrorShape(denied).message).toBe("This API key lacks the permission 'audit.read'.");
  });

  it('shows only the key’s own project', async () => {
    const mine = await worldWithLog(1);
    const theirs = await createWorld(t.deps);
    await t.deps.keys.revoke(await adminContext(t.deps, { keyId: theirs.keyId }), theirs.keyId);
    const body = await list(mine.key, '?scopes=content,security,users,other');
    expect(body.data.every((e) => !(e.entity === 'apiKey' && e.entityId === String(theirs.keyId)))).toBe(
      true,
    );
    expect(body.total).toBe(
      (
        await t.deps.database.db
          .selectFrom('audit_log')
          .select('id')
          .where('project_id', '=', mine.project.id)
          .execute()
      ).length,
    );
  });
});
