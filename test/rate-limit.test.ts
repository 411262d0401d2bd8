import { describe, expect, it } from 'vitest';
import { createKey, createWorld } from './helpers/factories.ts';
import { buildTestApp, client, expectErrorShape, TEST_REDIS_URL, useTestApp } from './helpers/test-app.ts';

// 2026-11-21T10:15:00Z: the hour window of listVersions (60 per hour) ends at 11:00:00Z.
const WINDOW_END = Date.parse('2026-11-21T11:00:00Z') / 1000;

const t = useTestApp();

describe(`rate limits (${TEST_REDIS_URL ? 'Redis' : 'in-process'} store)`, () => {
  it('reports limit, consumed count and reset on every call', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    for (let n = 1; n <= 3; n++) {
      const res = await api.get('/version');
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(n));
      expect(res.headers['x-ratelimit-reset']).toBe(String(WINDOW_END));
      expect(res.headers['ratelimit-policy']).toBe('"listVersions";q=60;w=3600');
      expect(res.headers['ratelimit']).toBe(`"listVersions";r=${60 - n};t=2700`);
    }
  });

  it('counts per key and per operation', async () => {
    const w = await createWorld(t.deps);
    const other = await createKey(t.deps, w.project.id);
    await client(t.app, w.key).get('/version');
    await client(t.app, w.key).get('/version');
    expect((await client(t.app, other.key).get('/version')).headers['x-ratelimit-remaining']).toBe('1');
    const users = await client(t.app, w.key).get('/users');
    expect(users.headers['x-ratelimit-limit']).toBe('3600');
    expect(users.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('answers 429 with Retry-After past the limit, and resets with the window', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    for (let n = 1; n <= 60; n++) expect((await api.get('/version')).statusCode).toBe(200);
    const limited = await api.get('/version');
    expect(limited.statusCode).toBe(429);
    expect(expectErrorShape(limited).message).toMatch(/rate limit/i);
    expect(limited.headers['retry-after']).toBe('2700');
    expect(limited.headers['x-ratelimit-remaining']).toBe('60');
    t.clock.advance(2700 * 1000);
    const fresh = await api.get('/version');
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['x-ratelimit-remaining']).toBe('1');
    expect(fresh.headers['x-ratelimit-reset']).toBe(String(WINDOW_END + 3600));
  });

  it('lets no more than the limit through under concurrency', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const results = await Promise.all(Array.from({ length: 90 }, () => api.get('/version')));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(60);
    expect(results.filter((r) => r.statusCode === 429)).toHaveLength(30);
  });

  it('scales every limit with RATE_LIMIT_SCALE', async () => {
    const scaled = await buildTestApp({ env: { RATE_LIMIT_SCALE: '0.05' } });
    try {
      const w = await createWorld(scaled.deps);
      const api = client(scaled.app, w.key);
      for (let n = 1; n <= 3; n++) expect((await api.get('/version')).headers['x-ratelimit-limit']).toBe('3');
      expect((await api.get('/version')).statusCode).toBe(429);
    } finally {
      await scaled.close();
    }
  });
});
