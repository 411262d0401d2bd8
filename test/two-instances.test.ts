import { afterEach, describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { buildTestApp, client, TEST_DATABASE_URL, TEST_REDIS_URL, type TestApp } from './helpers/test-app.ts';

const apps: TestApp[] = [];
afterEach(async () => {
  // The second instance first, as a deployment would stop them.
  for (const app of apps.reverse()) await app.close();
  apps.length = 0;
});

describe('two instances over one database', () => {
  it('see the same data', async () => {
    const a = await buildTestApp();
    apps.push(a);
    const b = await buildTestApp({ sharedWith: a });
    apps.push(b);
    const w = await createWorld(a.deps);
    const updated = await client(a.app, w.key).put(`/version/${w.version.id}`, { name: 'Renamed' });
    expect(updated.statusCode).toBe(200);
    const seen = await client(b.app, w.key).get('/version');
    expect(seen.json()).toMatchObject([{ id: w.version.id, name: 'Renamed' }]);
  });

  it('place creates sent to both at once into one section, each page once, with its own slug and place', async () => {
    const a = await buildTestApp();
    apps.push(a);
    const b = await buildTestApp({ sharedWith: a });
    apps.push(b);
    const w = await createWorld(a.deps);
    const url = `/documentation/${w.documentation.id}/page`;
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        client(i % 2 === 0 ? a.app : b.app, w.key).post(url, { title: 'Both', content: `#${i}` }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array.from({ length: 24 }, () => 200));
    const ids = results.map((r) => r.json<{ id: number }>().id);
    const rows = await a.deps.database.db
      .selectFrom('pages')
      .select(['id', 'slug', 'position'])
      .where('documentation_id', '=', w.documentation.id)
      .execute();
    expect(rows.map((r) => r.id).sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(rows.map((r) => r.slug)).size).toBe(24);
    expect(new Set(rows.map((r) => r.position)).size).toBe(24);
    const revisions = await a.deps.database.db
      .selectFrom('page_history')
      .select('page_id')
      .where('page_id', 'in', ids)
      .execute();
    expect(revisions.map((r) => r.page_id).sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
  });

  // Sharing counters needs the shared store: this runs when .ci/run provides PostgreSQL and Redis,
  // and is not defined at all on a machine without them.
  if (TEST_DATABASE_URL && TEST_REDIS_URL)
    it('share rate-limit counters through Redis on PostgreSQL', async () => {
      const a = await buildTestApp();
      apps.push(a);
      const b = await buildTestApp({ sharedWith: a });
      apps.push(b);
      const w = await createWorld(a.deps);
      const results = await Promise.all(
        Array.from({ length: 80 }, (_, i) => client(i % 2 === 0 ? a.app : b.app, w.key).get('/version')),
      );
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(60);
      expect(results.filter((r) => r.statusCode === 429)).toHaveLength(20);
      // Each admitted request got a count of its own, whichever instance counted it: 1 to 60, once each.
      const counts = results
        .filter((r) => r.statusCode === 200)
        .map((r) => Number(r.headers['x-ratelimit-remaining']))
        .sort((x, y) => x - y);
      expect(counts).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      const next = await client(b.app, w.key).get('/version');
      expect(next.headers['x-ratelimit-remaining']).toBe('60');
    });
});
