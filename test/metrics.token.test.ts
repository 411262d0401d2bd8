import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { expectErrorShape, useTestApp } from './helpers/test-app.ts';

/** METRICS_TOKEN puts GET /metrics behind a bearer token; without it /metrics stays open. */
const TOKEN = 'metrics-token-0123456789abcdef';
const t = useTestApp({ env: { METRICS_TOKEN: TOKEN } });

const scrape = (authorization?: string) =>
  t.app.inject({
    method: 'GET',
    url: '/metrics',
    ...(authorization === undefined ? {} : { headers: { authorization } }),
  });

describe('GET /metrics with METRICS_TOKEN', () => {
  it('answers the token, in any case of the scheme', async () => {
    for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`]) {
      const res = await scrape(header);
      expect(res.statusCode, header).toBe(200);
      expect(res.body).toMatch(/^# HELP quire_http_requests_total /m);
    }
  });

  it('refuses no token, another token and another scheme with 401, naming the scheme', async () => {
    for (const header of [
      undefined,
      'Bearer wrong-token-0123456789ab',
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN}x`,
      TOKEN,
    ]) {
      const res = await scrape(header);
      expect(res.statusCode, String(header)).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(expectErrorShape(res).message).toBe('GET /metrics needs the bearer token of METRICS_TOKEN.');
      expect(res.body).not.toContain('quire_http_requests_total');
    }
  });

  it('leaves the API and the health checks as they were', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).statusCode).toBe(200);
  });

  it('is refused at start when too short or holding spaces; the message never shows it', () => {
    for (const bad of ['short', 'has a space in it, sixteen+']) {
      expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(/METRICS_TOKEN must be 16-512 printable/);
      expect(() => loadConfig({ METRICS_TOKEN: bad })).not.toThrow(bad);
    }
    expect(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    // Unset, or set to nothing (as every variable): /metrics is open.
    expect(loadConfig({}).metricsToken).toBeNull();
    expect(loadConfig({ METRICS_TOKEN: '' }).metricsToken).toBeNull();
  });
});
