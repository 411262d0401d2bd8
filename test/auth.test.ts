import { describe, expect, it } from 'vitest';
import { adminContext, createKey, createVersion, createWorld } from './helpers/factories.ts';
import { buildTestApp, client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

describe('API keys', () => {
  it('refuses a request without a key', async () => {
    const res = await client(t.app).get('/version');
    expect(res.statusCode).toBe(403);
    expect(expectErrorShape(res).message).toBe('No API Key was provided.');
  });

  it('refuses an unknown key', async () => {
    const res = await client(t.app, 'qk_not-a-real-key-at-all-0000000000000000000').get('/version');
    expect(res.statusCode).toBe(403);
    expect(expectErrorShape(res).message).toBe('API Key is invalid.');
  });

  it('refuses a revoked key at once', async () => {
    const w = await createWorld(t.deps);
    expect((await client(t.app, w.key).get('/version')).statusCode).toBe(200);
    await t.deps.keys.revoke(await adminContext(t.deps, { keyId: w.keyId }), w.keyId);
    const res = await client(t.app, w.key).get('/version');
    expect(res.statusCode).toBe(403);
    expect(expectErrorShape(res).message).toBe('API Key is invalid.');
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const w = await createWorld(t.deps);
    const rows = await t.deps.database.db.selectFrom('api_keys').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(w.key.slice(3));
    expect(w.key).toMatch(/^qk_[A-Za-z0-9_-]{43}$/);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.key_hash))).toBe(true);
  });

  it('refuses an operation whose permission the key lacks, naming it', async () => {
    const w = await createWorld(t.deps);
    const readOnly = await createKey(t.deps, w.project.id, { permissions: ['project.read'] });
    expect((await client(t.app, readOnly.key).get('/version')).statusCode).toBe(200);
    const res = await client(t.app, readOnly.key).put(`/version/${w.version.id}`, { name: 'x' });
    expect(res.statusCode).toBe(403);
    expect(expectErrorShape(res).message).toBe("This API key lacks the permission 'version.publish'.");
  });

  it('limits a key to its versions: others answer 403', async () => {
    const w = await createWorld(t.deps);
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2' });
    const scoped = await createKey(t.deps, w.project.id, { versions: [v2.id] });
    const api = client(t.app, scoped.key);
    expect((await api.get(`/version/${v2.id}/documentation`)).statusCode).toBe(200);
    const res = await api.get(`/version/${w.version.id}/documentation`);
    expect(res.statusCode).toBe(403);
    expect((await api.put(`/version/${w.version.id}`, { name: 'x' })).statusCode).toBe(403);
  });

  it('reports a resource of another project as 404', async () => {
    const mine = await createWorld(t.deps);
    const theirs = await createWorld(t.deps);
    const res = await client(t.app, mine.key).get(`/version/${theirs.version.id}/documentation`);
    expect(res.statusCode).toBe(404);
  });

  it('rate limits repeated failed authentication per client address, never a valid key', async () => {
    const w = await createWorld(t.deps);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++)
      statuses.push((await client(t.app, `qk_wrong-${i}`).get('/version')).statusCode);
    expect(statuses.slice(0, 30).every((s) => s === 403)).toBe(true);
    expect(statuses[30]).toBe(429);
    const limited = await client(t.app).get('/version');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await client(t.app, w.key).get('/version')).statusCode).toBe(200);
    const elsewhere = await client(t.app, 'qk_wrong').get('/version', { remoteAddress: '10.9.8.7' });
    expect(elsewhere.statusCode).toBe(403);
    t.clock.advance(5 * 60_000);
    expect((await client(t.app, 'qk_wrong-again').get('/version')).statusCode).toBe(403);
  });

  it('behind a trusted proxy, counts failures per forwarded client address', async () => {
    const proxied = await buildTestApp({ env: { TRUST_PROXY: 'true' } });
    try {
      const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
      let last = 0;
      for (let i = 0; i < 31; i++)
        last = (await client(proxied.app, 'qk_bad').get('/version', from('1.2.3.4'))).statusCode;
      expect(last).toBe(429);
      expect((await client(proxied.app, 'qk_bad').get('/version', from('5.6.7.8'))).statusCode).toBe(403);
    } finally {
      await proxied.close();
    }
  });

  it('refuses NUL characters in query strings and bodies with a 400 naming the field', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const body = await api.put(`/version/${w.version.id}`, { name: 'v\u0000' });
    expect(body.statusCode).toBe(400);
    expect(expectErrorShape(body).details).toEqual([
      { field: 'body.name', message: 'must not contain NUL characters' },
    ]);
    const query = await api.get('/page?version_slug=v%00&documentation_slug=guides&page_slug=x');
    expect(query.statusCode).toBe(400);
    expect(expectErrorShape(query).details).toEqual([
      { field: 'query.version_slug', message: 'must not contain NUL characters' },
    ]);
  });
});

describe('origin policy', () => {
  it('refuses cross-origin calls to back-end operations', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).get('/version', { headers: { origin: 'https://evil.example' } });
    expect(res.statusCode).toBe(403);
    expect(expectErrorShape(res).message).toBe(
      'Cross-origin requests are not allowed. Call this API from a back-end.',
    );
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('gives preflights of back-end operations no CORS headers', async () => {
    const res = await client(t.app).send('OPTIONS', '/version', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(res.statusCode).toBe(403);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });
});
