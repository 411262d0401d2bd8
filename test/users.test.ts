import { describe, expect, it } from 'vitest';
import { auditEntries, createKey, createUser, createWorld } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

describe('GET /users', () => {
  it('lists every user of the project with its role, and no other project’s', async () => {
    const w = await createWorld(t.deps);
    const ann = await createUser(t.deps, w.project.id, {
      name: 'Ann',
      email: 'Ann@Example.com',
      role: 'ADMIN',
    });
    const bob = await createUser(t.deps, w.project.id, {
      name: 'Bob',
      email: 'bob@example.com',
      role: 'REVIEWER',
    });
    const other = await createWorld(t.deps);
    await createUser(t.deps, other.project.id, { email: 'someone@else.com' });
    const res = await client(t.app, w.key).get('/users');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: ann.id, name: 'Ann', email: 'ann@example.com', role: 'ADMIN', lastActiveAt: null },
      { id: bob.id, name: 'Bob', email: 'bob@example.com', role: 'REVIEWER', lastActiveAt: null },
    ]);
  });

  it('sets lastActiveAt when a key that belongs to a user is used, at most once a minute', async () => {
    const w = await createWorld(t.deps);
    const ann = await createUser(t.deps, w.project.id, { email: 'ann@example.com' });
    const hers = await createKey(t.deps, w.project.id, { userId: ann.id });
    await client(t.app, hers.key).get('/version');
    const first = (await client(t.app, w.key).get('/users')).json()[0] as { lastActiveAt: string };
    expect(first.lastActiveAt).toBe('2026-11-21T10:15:00+0000');
    t.clock.advance(30_000);
    await client(t.app, hers.key).get('/version');
    expect(
      ((await client(t.app, w.key).get('/users')).json()[0] as { lastActiveAt: string }).lastActiveAt,
    ).toBe('2026-11-21T10:15:00+0000');
    t.clock.advance(31_000);
    await client(t.app, hers.key).get('/version');
    expect(
      ((await client(t.app, w.key).get('/users')).json()[0] as { lastActiveAt: string }).lastActiveAt,
    ).toBe('2026-11-21T10:16:01+0000');
  });

  it('names the user in audit entries of changes made with the user’s key', async () => {
    const w = await createWorld(t.deps);
    const ann = await createUser(t.deps, w.project.id, { email: 'ann@example.com' });
    const hers = await createKey(t.deps, w.project.id, { userId: ann.id, name: 'CI' });
    await client(t.app, hers.key).put(
      `/version/${w.version.id}`,
      { published: false },
      { remoteAddress: '10.1.2.3' },
    );
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({
      user_label: `${ann.id} ann@example.com`,
      api_key_label: `${hers.id} CI`,
      ip_address: '10.1.2.3',
    });
  });
});
