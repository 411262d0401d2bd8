import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { buildTestApp, client, dialectName, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { startReceiver } from './helpers/webhook-receiver.ts';

/** PostgreSQL refuses webhooks without a configured key; SQLite tests use the key file. */
const KEY_ENV: Record<string, string> =
  dialectName === 'postgres' ? { WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') } : {};
const t = useTestApp({ env: { ...KEY_ENV, WEBHOOK_ALLOW_PRIVATE: 'true' } });

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of an exposition text (comments skipped), labels parsed. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[name!] = value!;
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

async function scrape(app: FastifyInstance): Promise<Sample[]> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode, res.body).toBe(200);
  return parse(res.body);
}

/** The value of the one sample with that name and these labels (among others); undefined if none. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** Every series of the HTTP metrics, as comparable strings. */
const httpSeries = (samples: Sample[]): string[] =>
  samples
    .filter((s) => s.name.startsWith('quire_http_'))
    .map((s) => `${s.name}${JSON.stringify(s.labels)}`)
    .sort();

const requests = (samples: Sample[], operation: string, status: number, method = 'GET') =>
  value(samples, 'quire_http_requests_total', { operation, method, status: String(status) });

describe('GET /metrics', () => {
  it('answers Prometheus text without a key, outside the rate limits and the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.body).toMatch(/^# HELP quire_http_requests_total /m);
    expect(res.body).toMatch(/^# TYPE quire_http_request_duration_seconds histogram$/m);
    // Process metrics, from prom-client's defaults, on this app's own registry.
    const samples = parse(res.body);
    for (const name of [
      'process_cpu_user_seconds_total',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(value(samples, name), name).toBeGreaterThanOrEqual(0);
    }
    const document = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(Object.keys(document.json<{ paths: object }>().paths).some((p) => p.includes('metrics'))).toBe(
      false,
    );
  });

  it('counts requests by operation, method and status, with their durations', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    expect((await api.get('/version')).statusCode).toBe(200);
    expect((await api.get('/version')).statusCode).toBe(200);
    expect((await client(t.app).get('/version')).statusCode).toBe(403);
    expect((await api.get('/page/987654')).statusCode).toBe(404);
    expect((await api.get('/healthz')).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/no/such/route' })).statusCode).toBe(404);
    const samples = await scrape(t.app);
    expect(requests(samples, 'listVersions', 200)).toBe(2);
    expect(requests(samples, 'listVersions', 403)).toBe(1);
    expect(requests(samples, 'readPage', 404)).toBe(1);
    expect(requests(samples, '/healthz', 200)).toBe(1);
    expect(requests(samples, 'unmatched', 404)).toBe(1);

    const histogram = 'quire_http_request_duration_seconds';
    expect(value(samples, `${histogram}_count`, { operation: 'listVersions' })).toBe(3);
    expect(value(samples, `${histogram}_bucket`, { operation: 'listVersions', le: '+Inf' })).toBe(3);
    expect(value(samples, `${histogram}_sum`, { operation: 'listVersions' })).toBeGreaterThan(0);
    const buckets = samples.filter(
      (s) => s.name === `${histogram}_bucket` && s.labels.operation === 'listVersions',
    );
    expect(buckets.map((s) => s.labels.le)).toEqual([
      '0.0005',
      '0.001',
      '0.0025',
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '30',
      '+Inf',
    ]);
    // Cumulative: each bucket holds at least what the one before holds.
    buckets.forEach((s, i) => expect(s.value).toBeGreaterThanOrEqual(buckets[i - 1]?.value ?? 0));

    // The scrape itself is counted once answered, under its route.
    expect(requests(await scrape(t.app), '/metrics', 200)).toBe(1);
  });

  it('counts 429 refusals by operation and by the limit that refused them', async () => {
    // listVersions: 60 an hour scaled to 3; failed keys: 30 per 5 minutes scaled to 1.
    const app = await buildTestApp({ env: { RATE_LIMIT_SCALE: '0.05' } });
    try {
      const w = await createWorld(app.deps);
      const api = client(app.app, w.key);
      for (let n = 0; n < 3; n++) expect((await api.get('/version')).statusCode).toBe(200);
      const limited = await api.get('/version');
      expect(limited.statusCode).toBe(429);
      expectErrorShape(limited);
      const stranger = client(app.app, 'qk_not-a-key');
      expect((await stranger.get('/version')).statusCode).toBe(403);
      expect((await stranger.get('/version')).statusCode).toBe(429);
      expect((await stranger.get('/users')).statusCode).toBe(429);

      const samples = await scrape(app.app);
      const refusals = 'quire_rate_limit_refusals_total';
      expect(value(samples, refusals, { operation: 'listVersions', limit: 'operation' })).toBe(1);
      expect(value(samples, refusals, { operation: 'listVersions', limit: 'auth_failures' })).toBe(1);
      expect(value(samples, refusals, { operation: 'listUsers', limit: 'auth_failures' })).toBe(1);
      expect(value(samples, refusals, { operation: 'listUsers', limit: 'operation' })).toBeUndefined();
      expect(requests(samples, 'listVersions', 429)).toBe(2);
    } finally {
      await app.close();
    }
  });

  it('counts cache hits and misses, and times database statements', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Cached',
      content: '# Cached\n\nRead **often**, and [auto$](/guides/cached).',
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json<{ id: number }>().id;
    // The link scans of the new page are written in the background: a write would retire the kept answers.
    await t.deps.linkScans.idle();
    const before = await scrape(t.app);
    for (let n = 0; n < 3; n++) expect((await api.get(`/page/${id}?format=html`)).statusCode).toBe(200);
    expect((await api.get(`/page/${id}?format=markdown`)).statusCode).toBe(200);
    for (let n = 0; n < 2; n++) expect((await api.get('/search?query=often')).statusCode).toBe(200);
    const after = await scrape(t.app);
    const delta = (name: string, cache: string) =>
      (value(after, name, { cache }) ?? NaN) - (value(before, name, { cache }) ?? NaN);

    // Every request resolves its key; the cache has held it since the page was created.
    expect(delta('quire_cache_hits_total', 'api_key')).toBe(6);
    expect(delta('quire_cache_misses_total', 'api_key')).toBe(0);
    // On both databases the first read makes the answer (through the render cache), under the
    // project's change stamp; the next two are served as they are; markdown is another answer.
    expect(delta('quire_cache_misses_total', 'page_response')).toBe(2);
    expect(delta('quire_cache_hits_total', 'page_response')).toBe(2);
    // The title its link names is read for the first answer, and kept for the markdown one.
    expect(delta('quire_cache_misses_total', 'link_title')).toBe(1);
    expect(delta('quire_cache_hits_total', 'link_title')).toBe(1);
    const renders =
      delta('quire_cache_misses_total', 'page_render') + delta('quire_cache_hits_total', 'page_render');
    expect(renders).toBeGreaterThan(0);
    // Search answers too are kept under the project's change stamp, on both databases.
    expect(delta('quire_cache_misses_total', 'search_answer')).toBe(1);
    expect(delta('quire_cache_hits_total', 'search_answer')).toBe(1);

    const queries = 'quire_db_query_duration_seconds';
    expect(value(after, `${queries}_count`, { statement: 'insert' })).toBeGreaterThan(0);
    expect(value(after, `${queries}_count`, { statement: 'select' })).toBeGreaterThan(
      value(before, `${queries}_count`, { statement: 'select' }) ?? Infinity,
    );
    expect(value(after, `${queries}_bucket`, { statement: 'select', le: '+Inf' })).toBe(
      value(after, `${queries}_count`, { statement: 'select' }),
    );
  });

  it('reports the webhook deliveries still pending in the outbox', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const receiver = await startReceiver();
    try {
      const pending = async () => value(await scrape(t.app), 'quire_webhook_deliveries_pending');
      expect(await pending()).toBe(0);
      const hook = await api.post('/webhooks', { url: receiver.url(), events: ['page.created'] });
      expect(hook.statusCode, hook.body).toBe(201);
      for (const title of ['One', 'Two']) {
        const res = await api.post(`/documentation/${w.documentation.id}/page`, { title, content: 'x' });
        expect(res.statusCode).toBe(200);
      }
      // Tests run no dispatcher: both wait in the outbox until drained.
      expect(await pending()).toBe(2);
      expect(await t.deps.webhookDispatcher.drain()).toBe(2);
      await receiver.waitFor(2);
      expect(await pending()).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('keeps label values bounded: unknown URLs all count as "unmatched"', async () => {
    await t.app.inject({ method: 'GET', url: '/first-unknown' });
    await scrape(t.app);
    const before = await scrape(t.app);
    const tokens = Array.from({ length: 50 }, () => randomBytes(6).toString('hex'));
    for (const [i, token] of tokens.entries()) {
      const url = i % 2 === 0 ? `/${token}` : `/api/v1/${token}/${i}?q=${token}`;
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    }
    const afterText = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const after = parse(afterText);
    expect(httpSeries(after)).toEqual(httpSeries(before));
    expect(requests(after, 'unmatched', 404)).toBe(51);
    for (const token of tokens) expect(afterText).not.toContain(token);
  });

  it.runIf(dialectName === 'postgres')('reports the PostgreSQL pool', async () => {
    await createWorld(t.deps);
    const samples = await scrape(t.app);
    expect(value(samples, 'quire_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'quire_db_pool_idle_connections')).toBeGreaterThanOrEqual(0);
    expect(value(samples, 'quire_db_pool_waiting_requests')).toBe(0);
  });

  it.runIf(dialectName === 'sqlite')('reports no pool on SQLite, which has none', async () => {
    const samples = await scrape(t.app);
    expect(samples.some((s) => s.name.startsWith('quire_db_pool_'))).toBe(false);
  });

  it('is absent with METRICS=false: a 404 in the error envelope, and nothing counted', async () => {
    const app = await buildTestApp({ env: { METRICS: 'false' } });
    try {
      expect(app.deps.metrics).toBeNull();
      const res = await app.app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(404);
      expect(expectErrorShape(res).message).toBe('Route GET /metrics not found.');
      expect((await app.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
