import { describe, expect, it } from 'vitest';
import { adminContext, auditEntries, createKey, createProject, createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

const MINUTE = 60_000;
// The test clock starts at 2026-11-21T10:15:00Z.
const NOW = '2026-11-21T10:15:00+0000';

async function readerAccessRows(projectId: number) {
  return t.deps.database.db
    .selectFrom('reader_access')
    .selectAll()
    .where('project_id', '=', projectId)
    .execute();
}

describe('POST /reader-access', () => {
  it('grants access with a normalised email and no expiry, and audits it as security', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).post('/reader-access', { email: '  Reader@Example.COM ' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ email: 'reader@example.com', expiresAt: null, created: NOW, revoked: null });
    const [row] = await readerAccessRows(w.project.id);
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({
      scope: 'security',
      entity: 'readerAccess',
      entity_id: String(row?.id),
      operation: 'INS',
      api_key_label: `${w.keyId} API key`,
    });
    expect(entry?.message).toContain('reader@example.com');
  });

  it.each([
    ['2027-01-02T03:04:05+00:00', '2027-01-02T03:04:05+0000'],
    ['2027-01-02T03:04:05+0000', '2027-01-02T03:04:05+0000'],
    ['2027-01-02T03:04:05Z', '2027-01-02T03:04:05+0000'],
    ['2027-01-02T05:04:05+02:00', '2027-01-02T03:04:05+0000'],
    ['2027-01-01T22:04:05-05:00', '2027-01-02T03:04:05+0000'],
  ])('accepts expiresAt %s and answers it in UTC', async (given, shown) => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).post('/reader-access', {
      email: 'a@example.com',
      expiresAt: given,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ expiresAt: shown });
  });

  it('accepts a null expiresAt as never expiring', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).post('/reader-access', {
      email: 'a@example.com',
      expiresAt: null,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ expiresAt: null });
  });

  it('refuses grants in a project that is not protected by e-mail invite', async () => {
    const project = await createProject(t.deps, { access: 'public' });
    const { key } = await createKey(t.deps, project.id);
    const res = await client(t.app, key).post('/reader-access', { email: 'a@example.com' });
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toMatch(/e-mail invite/);
    expect(await readerAccessRows(project.id)).toEqual([]);
  });

  it.each([
    ['a missing email', {}, 'body.email'],
    ['an empty email', { email: '' }, 'body.email'],
    ['an invalid email', { email: 'not-an-email' }, 'body.email'],
    ['an email without a domain dot', { email: 'a@localhost' }, 'body.email'],
    ['a number as email', { email: 42 }, 'body.email'],
    ['an expiresAt without time', { email: 'a@example.com', expiresAt: '2027-01-01' }, 'body.expiresAt'],
    [
      'an expiresAt with a bad month',
      { email: 'a@example.com', expiresAt: '2027-13-01T00:00:00Z' },
      'body.expiresAt',
    ],
    ['an expiresAt that is no date', { email: 'a@example.com', expiresAt: 'tomorrow' }, 'body.expiresAt'],
    [
      'an expiresAt past the year 9999 in UTC',
      { email: 'a@example.com', expiresAt: '9999-12-31T23:59:59-23:59' },
      'body.expiresAt',
    ],
    ['an expiresAt as a number', { email: 'a@example.com', expiresAt: 1893456000 }, 'body.expiresAt'],
    [
      'an expiresAt in the past',
      { email: 'a@example.com', expiresAt: '2026-11-21T10:14:59Z' },
      'body.expiresAt',
    ],
    [
      'an expiresAt of exactly now',
      { email: 'a@example.com', expiresAt: '2026-11-21T10:15:00Z' },
      'body.expiresAt',
    ],
  ])('answers 400 naming the field for %s', async (_label, body, field) => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).post('/reader-access', body);
    expect(res.statusCode).toBe(400);
    const error = expectErrorShape(res);
    expect(error.details).toEqual(expect.arrayContaining([{ field, message: expect.any(String) as string }]));
    expect(await readerAccessRows(w.project.id)).toEqual([]);
  });

  it('re-activates and updates an existing grant instead of adding one', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await api.post('/reader-access', { email: 'a@example.com', expiresAt: '2027-01-01T00:00:00Z' });
    t.clock.advance(MINUTE);
    await api.patch('/reader-access', { email: 'a@example.com' });
    t.clock.advance(MINUTE);
    const again = await api.post('/reader-access', {
      email: 'A@Example.com',
      expiresAt: '2028-06-01T12:00:00Z',
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({
      email: 'a@example.com',
      expiresAt: '2028-06-01T12:00:00+0000',
      created: NOW,
      revoked: null,
    });
    // A re-grant without expiresAt sets "never expires", as a new grant would.
    const forever = await api.post('/reader-access', { email: 'a@example.com' });
    expect(forever.json()).toMatchObject({ expiresAt: null, revoked: null, created: NOW });
    expect(await readerAccessRows(w.project.id)).toHaveLength(1);
    const entries = (await auditEntries(t.deps, w.project.id)).filter((e) => e.entity === 'readerAccess');
    expect(entries.map((e) => e.operation)).toEqual(['UPD', 'UPD', 'DEL', 'INS']);
    expect(entries.every((e) => e.scope === 'security')).toBe(true);
    expect(JSON.parse(entries[1]?.details ?? '{}')).toMatchObject({
      before: { expiresAt: '2027-01-01T00:00:00+0000', revoked: '2026-11-21T10:16:00+0000' },
      after: { expiresAt: '2028-06-01T12:00:00+0000', revoked: null },
    });
  });

  it('leaves one grant when the same email is granted concurrently', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.post('/reader-access', { email: i % 2 ? 'Race@Example.com' : 'race@example.com' }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    expect(results.every((r) => r.json<{ email: string }>().email === 'race@example.com')).toBe(true);
    const rows = await readerAccessRows(w.project.id);
    expect(rows).toHaveLength(1);
    const ops = (await auditEntries(t.deps, w.project.id))
      .filter((e) => e.entity === 'readerAccess')
      .map((e) => e.operation)
      .sort();
    expect(ops).toEqual(['INS', 'UPD', 'UPD', 'UPD', 'UPD', 'UPD', 'UPD', 'UPD']);
  });

  it('keeps grants of one email in two projects apart', async () => {
    const a = await createWorld(t.deps);
    const b = await createWorld(t.deps);
    await client(t.app, a.key).post('/reader-access', { email: 'same@example.com' });
    await client(t.app, b.key).post('/reader-access', { email: 'same@example.com' });
    await client(t.app, a.key).patch('/reader-access', { email: 'same@example.com' });
    expect((await client(t.app, b.key).get('/reader-access')).json()).toEqual([
      { email: 'same@example.com', expiresAt: null, created: NOW, revoked: null },
    ]);
  });

  it('answers 415 for a body that is not JSON and 403 without access.write', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const form = await api.post('/reader-access', 'email=a@example.com', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.statusCode).toBe(415);
    expectErrorShape(form);
    const reader = await createKey(t.deps, w.project.id, { permissions: ['access.read'] });
    const denied = await client(t.app, reader.key).post('/reader-access', { email: 'a@example.com' });
    expect(denied.statusCode).toBe(403);
    expect(expectErrorShape(denied).message).toContain('access.write');
    expect(await readerAccessRows(w.project.id)).toEqual([]);
  });

  it('answers 429 after 100 grants in an hour with one key', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    for (let i = 0; i < 100; i++) {
      const ok = await api.post('/reader-access', { email: `r${i}@example.com` });
      expect(ok.statusCode).toBe(200);
    }
    const limited = await api.post('/reader-access', { email: 'over@example.com' });
    expect(limited.statusCode).toBe(429);
    expectErrorShape(limited);
    expect(await readerAccessRows(w.project.id)).toHaveLength(100);
  });
});

describe('PATCH /reader-access', () => {
  it('revokes now, audits it, and answers a second revoke with the same record unchanged', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await api.post('/reader-access', { email: 'a@example.com', expiresAt: '2027-01-01T00:00:00+00:00' });
    t.clock.advance(5 * MINUTE);
    const first = await api.patch('/reader-access', { email: 'A@EXAMPLE.COM' });
    expect(first.statusCode).toBe(200);
    const revoked = {
      email: 'a@example.com',
      expiresAt: '2027-01-01T00:00:00+0000',
      created: NOW,
      revoked: '2026-11-21T10:20:00+0000',
    };
    expect(first.json()).toEqual(revoked);
    t.clock.advance(5 * MINUTE);
    const second = await api.patch('/reader-access', { email: 'a@example.com' });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(revoked);
    const entries = (await auditEntries(t.deps, w.project.id)).filter((e) => e.entity === 'readerAccess');
    expect(entries.map((e) => [e.operation, e.scope])).toEqual([
      ['DEL', 'security'],
      ['INS', 'security'],
    ]);
  });

  it('answers 404 for an email without a grant, also one granted in another project', async () => {
    const w = await createWorld(t.deps);
    const other = await createWorld(t.deps);
    await client(t.app, other.key).post('/reader-access', { email: 'theirs@example.com' });
    for (const email of ['nobody@example.com', 'theirs@example.com']) {
      const res = await client(t.app, w.key).patch('/reader-access', { email });
      expect(res.statusCode).toBe(404);
      expect(expectErrorShape(res).message).toContain(email);
    }
    expect((await readerAccessRows(other.project.id))[0]?.revoked_at).toBeNull();
  });

  it('answers 400 for a missing or invalid email, 415 for a non-JSON body, 403 without access.write', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const missing = await api.patch('/reader-access', {});
    expect(missing.statusCode).toBe(400);
    expect(expectErrorShape(missing).details).toEqual([{ field: 'body.email', message: 'is required' }]);
    const invalid = await api.patch('/reader-access', { email: 'nope' });
    expect(invalid.statusCode).toBe(400);
    expect(expectErrorShape(invalid).details).toEqual([
      { field: 'body.email', message: expect.any(String) as string },
    ]);
    const text = await api.patch('/reader-access', 'a@example.com', {
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.statusCode).toBe(415);
    expectErrorShape(text);
    await api.post('/reader-access', { email: 'a@example.com' });
    const reader = await createKey(t.deps, w.project.id, { permissions: ['access.read'] });
    const denied = await client(t.app, reader.key).patch('/reader-access', { email: 'a@example.com' });
    expect(denied.statusCode).toBe(403);
    expect((await readerAccessRows(w.project.id))[0]?.revoked_at).toBeNull();
  });

  it('still revokes in a project that is no longer protected by invite', async () => {
    const w = await createWorld(t.deps);
    await client(t.app, w.key).post('/reader-access', { email: 'a@example.com' });
    await t.deps.projects.update(await adminContext(t.deps, { projectId: w.project.id }), {
      access: 'public',
    });
    const res = await client(t.app, w.key).patch('/reader-access', { email: 'a@example.com' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ revoked: NOW });
  });
});

describe('GET /reader-access', () => {
  it('lists every grant of the project, revoked ones included, newest first', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    expect((await api.get('/reader-access')).json()).toEqual([]);
    await api.post('/reader-access', { email: 'first@example.com' });
    t.clock.advance(MINUTE);
    await api.post('/reader-access', { email: 'second@example.com', expiresAt: '2027-03-01T00:00:00Z' });
    t.clock.advance(MINUTE);
    await api.post('/reader-access', { email: 'third@example.com' });
    t.clock.advance(MINUTE);
    await api.patch('/reader-access', { email: 'second@example.com' });
    // A re-grant keeps its creation date, and so its place in the list.
    await api.post('/reader-access', { email: 'first@example.com', expiresAt: '2027-02-01T00:00:00Z' });
    const other = await createWorld(t.deps);
    await client(t.app, other.key).post('/reader-access', { email: 'elsewhere@example.com' });

    const res = await api.get('/reader-access');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { email: 'third@example.com', expiresAt: null, created: '2026-11-21T10:17:00+0000', revoked: null },
      {
        email: 'second@example.com',
        expiresAt: '2027-03-01T00:00:00+0000',
        created: '2026-11-21T10:16:00+0000',
        revoked: '2026-11-21T10:18:00+0000',
      },
      { email: 'first@example.com', expiresAt: '2027-02-01T00:00:00+0000', created: NOW, revoked: null },
    ]);
  });

  it('orders grants of the same instant by the later grant first', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    for (const email of ['x@example.com', 'y@example.com', 'z@example.com']) {
      await api.post('/reader-access', { email });
    }
    const emails = (await api.get('/reader-access')).json<Array<{ email: string }>>().map((g) => g.email);
    expect(emails).toEqual(['z@example.com', 'y@example.com', 'x@example.com']);
  });

  it('answers 403 without access.read, and works for a key with only access.read', async () => {
    const w = await createWorld(t.deps);
    await client(t.app, w.key).post('/reader-access', { email: 'a@example.com' });
    const writer = await createKey(t.deps, w.project.id, { permissions: ['access.write', 'project.read'] });
    const denied = await client(t.app, writer.key).get('/reader-access');
    expect(denied.statusCode).toBe(403);
    expect(expectErrorShape(denied).message).toContain('access.read');
    const reader = await createKey(t.deps, w.project.id, { permissions: ['access.read'] });
    const ok = await client(t.app, reader.key).get('/reader-access');
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toHaveLength(1);
  });
});
