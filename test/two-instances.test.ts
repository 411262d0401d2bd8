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
      const next = await client(b.app, w.key).get('/version');
      expect(next.headers['x-ratelimit-remaining']).toBe('60');
    });
});
