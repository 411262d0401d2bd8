import { afterEach, describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { buildTestApp, client, type TestApp } from './helpers/test-app.ts';

// The rendered contents stored in the database stay under RENDER_STORE_MB: the outputs stored or
// found longest ago go first, and /metrics reports what the store weighs.
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.reverse()) await app.close();
  apps.length = 0;
});

const MIB = 1024 * 1024;
const MINUTE_MS = 60 * 1000;

async function storedKeys(app: TestApp) {
  const rows = await app.deps.database.db.selectFrom('rendered_contents').select(['key', 'bytes']).execute();
  return { keys: rows.map((row) => row.key), bytes: rows.reduce((sum, row) => sum + Number(row.bytes), 0) };
}

async function gauge(app: TestApp): Promise<number> {
  const res = await app.app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  const found = /^quire_render_store_bytes (\S+)$/m.exec(res.body);
  expect(found, 'quire_render_store_bytes is reported').not.toBeNull();
  return Number(found![1]);
}

describe('the store of rendered contents', () => {
  it('stays under RENDER_STORE_MB, the oldest outputs evicted first, and /metrics reports its size', async () => {
    const a = await buildTestApp({ env: { RATE_LIMIT_SCALE: '1000', RENDER_STORE_MB: '1' } });
    apps.push(a);
    const w = await createWorld(a.deps);
    const api = client(a.app, w.key);
    // About 60 KB of HTML each: 40 of them weigh more than twice the cap.
    const body = (n: number) =>
      Array.from({ length: 600 }, (_, i) => `Paragraph ${i} of page ${n}, with **bold** text é.`).join(
        '\n\n',
      );
    const ids: number[] = [];
    for (let n = 0; n < 40; n++) {
      const res = await api.post(`/documentation/${w.documentation.id}/page`, {
        title: `Page ${n}`,
        content: body(n),
      });
      expect(res.statusCode).toBe(200);
      ids.push(res.json<{ id: number }>().id);
    }
    const keysOf = new Map<number, string[]>();
    for (const id of ids) {
      const before = new Set((await storedKeys(a)).keys);
      expect((await api.get(`/page/${id}?format=html`)).statusCode).toBe(200);
      // A minute between reads: each output is older than the next, so the order of eviction is known.
      await a.deps.pages.rendered.idle();
      a.clock.advance(MINUTE_MS);
      keysOf.set(
        id,
        (await storedKeys(a)).keys.filter((key) => !before.has(key)),
      );
    }
    const stored = await storedKeys(a);
    expect(stored.bytes).toBeLessThanOrEqual(MIB);
    expect(stored.bytes).toBeGreaterThan(MIB / 2);
    // The newest page's output is kept, the oldest's evicted.
    const newest = keysOf.get(ids[ids.length - 1]!)!;
    const oldest = keysOf.get(ids[0]!)!;
    expect(newest.length).toBe(1);
    expect(oldest.length).toBe(1);
    expect(stored.keys).toContain(newest[0]);
    expect(stored.keys).not.toContain(oldest[0]);
    expect(await gauge(a)).toBe(stored.bytes);
  });

  it('evicts what another instance stored over the cap when the jobs room weighs the store', async () => {
    const a = await buildTestApp({ env: { RATE_LIMIT_SCALE: '1000', RENDER_STORE_MB: '1' } });
    apps.push(a);
    const stored = Array.from({ length: 30 }, (_, i) => ({
      key: `other-instance:${String(i).padStart(2, '0')}`,
      body: JSON.stringify('x'.repeat(64 * 1024)),
      json: 1,
      created: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(),
      bytes: 64 * 1024 + 30,
    }));
    await a.deps.database.db.insertInto('rendered_contents').values(stored).execute();
    expect(await gauge(a)).toBe(30 * (64 * 1024 + 30));
    const job = a.deps.jobs.find((each) => each.name === 'stored renders under RENDER_STORE_MB');
    expect(job).toBeDefined();
    const evicted = await new Promise<number>((resolve, reject) =>
      job!.start({
        info: (details) => resolve((details as { evicted: number }).evicted),
        warn: (details) => reject(new Error(JSON.stringify(details))),
      }),
    );
    const left = await storedKeys(a);
    expect(evicted).toBe(30 - left.keys.length);
    expect(left.bytes).toBeLessThanOrEqual(0.9 * MIB);
    expect(left.keys.sort()).toEqual(stored.slice(30 - left.keys.length).map((row) => row.key));
    expect(await gauge(a)).toBe(left.bytes);
  });
});
