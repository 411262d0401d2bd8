import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { auditEntries, createKey, createWorld } from './helpers/factories.ts';
import { buildTestApp, client, dialectName, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { startReceiver, verifyWebhook } from './helpers/webhook-receiver.ts';

/** PostgreSQL refuses webhooks without a configured key; SQLite tests use the key file. */
const KEY_ENV: Record<string, string> =
  dialectName === 'postgres' ? { WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') } : {};
const ENV = { ...KEY_ENV, WEBHOOK_ALLOW_PRIVATE: 'true' };
const t = useTestApp({
  env: ENV,
  // Registration resolves names: these tests never ask a real DNS server.
  overrides: { webhookResolver: () => Promise.resolve([{ address: '203.0.113.7', family: 4 }]) },
});

const hook = { url: 'https://hooks.example.test/quire', events: ['page.created', 'page.published'] };

describe('webhooks over HTTP', () => {
  it('creates a webhook, shows its secret once, lists it without, and audits it', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const res = await api.post('/webhooks', { ...hook, description: 'CI' });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<{ id: number; secret: string }>();
    expect(created).toEqual({
      id: expect.any(Number) as number,
      url: hook.url,
      events: hook.events,
      description: 'CI',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/) as string,
      created: '2026-11-21T10:15:00+0000',
      versions: null,
    });
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(24);
    const list = await api.get('/webhooks');
    expect(list.statusCode).toBe(200);
    const listed = {
      id: created.id,
      url: hook.url,
      events: hook.events,
      description: 'CI',
      created: expect.any(String),
      versions: null,
    };
    expect(list.json()).toEqual({
      data: [listed],
      cursor: null,
      count: 1,
      total: 1,
      items: [listed],
    });
    expect(list.body).not.toContain(created.secret.slice(6));
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({
      scope: 'security',
      entity: 'webhook',
      entity_id: String(created.id),
      operation: 'INS',
    });
    expect(JSON.stringify(entry)).not.toContain(created.secret.slice(6));
  });

  it('stores the secret encrypted, and reads it back after a restart', async () => {
    const w = await createWorld(t.deps);
    const receiver = await startReceiver();
    try {
      const res = await client(t.app, w.key).post('/webhooks', {
        url: receiver.url(),
        events: ['page.created'],
      });
      const { id, secret } = res.json<{ id: number; secret: string }>();
      const row = await t.deps.database.db
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.secret).not.toContain(secret.slice(6));
      expect(row.secret).not.toContain(Buffer.from(secret.slice(6), 'base64').toString('hex'));
      expect(row.secret).toMatch(/^v1\./);
      if (dialectName === 'sqlite') {
        const keyFile = `${t.storage.databaseUrl.slice('sqlite:'.length)}.webhook-key`;
        expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      }
      // A new app over the same database (a restart) signs with the same secret.
      const again = await buildTestApp({ sharedWith: t, env: ENV });
      try {
        await client(again.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
          title: 'A',
          content: 'x',
        });
        expect(await again.deps.webhookDispatcher.drain()).toBe(1);
        const [delivery] = await receiver.waitFor(1);
        expect(
          verifyWebhook(secret, delivery!.headers, delivery!.body, Math.floor(t.clock.now() / 1000)).type,
        ).toBe('page.created');
      } finally {
        await again.close();
      }
    } finally {
      await receiver.close();
    }
  });

  it('keeps a create made with an Idempotency-Key encrypted, and replays it with the same secret', async () => {
    const w = await createWorld(t.deps);
    const receiver = await startReceiver();
    try {
      const body = { url: receiver.url(), events: ['page.created'] };
      const headers = { 'idempotency-key': 'create-hook-1' };
      const first = await client(t.app, w.key).post('/webhooks', body, { headers });
      expect(first.statusCode).toBe(201);
      const { id, secret } = first.json<{ id: number; secret: string }>();
      const kept = await t.deps.database.db
        .selectFrom('idempotency_keys')
        .select('body')
        .where('idempotency_key', '=', 'create-hook-1')
        .executeTakeFirstOrThrow();
      expect(kept.body).toMatch(/^sealed:v1\./);
      expect(kept.body).not.toContain(secret.slice(6));
      expect(kept.body).not.toContain('whsec_');

      const replay = await client(t.app, w.key).post('/webhooks', body, { headers });
      expect(replay.statusCode).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toBe(first.body);
      expect(replay.json()).toMatchObject({ id, secret });
      expect((await client(t.app, w.key).get('/webhooks')).json<{ items: unknown[] }>().items).toHaveLength(
        1,
      );
    } finally {
      await receiver.close();
    }
  });

  it('refuses invalid bodies with 400 and field details, and other content types with 415', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const cases: Array<[unknown, string]> = [
      [{ ...hook, url: 'ftp://example.test/x' }, 'body.url'],
      [{ ...hook, url: '/relative' }, 'body.url'],
      [{ ...hook, url: 'https://user:pw@example.test/' }, 'body.url'],
      [{ ...hook, url: `https://example.test/${'a'.repeat(2048)}` }, 'body.url'],
      [{ ...hook, events: [] }, 'body.events'],
      [{ ...hook, events: ['page.created', 'page.created'] }, 'body.events'],
      [{ ...hook, events: ['page.restored'] }, 'body.events.0'],
      [{ ...hook, description: 'x'.repeat(501) }, 'body.description'],
      [{ events: hook.events }, 'body.url'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post('/webhooks', body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      const error = expectErrorShape(res);
      expect(
        (error.details as Array<{ field: string }>).map((d) => d.field),
        res.body,
      ).toContain(field);
    }
    const form = await api.post('/webhooks', 'url=x', { headers: { 'content-type': 'text/plain' } });
    expect(form.statusCode).toBe(415);
    expect(expectErrorShape(form).message).toBe(
      "Unsupported content-type 'text/plain'. Supported content-type is 'application/json'.",
    );
    expect((await api.get('/webhooks')).json()).toEqual({
      data: [],
      cursor: null,
      count: 0,
      total: 0,
      items: [],
    });
  });

  it('answers 403 to keys without webhook.read or webhook.write', async () => {
    const w = await createWorld(t.deps);
    const reader = (await createKey(t.deps, w.project.id, { permissions: ['webhook.read'] })).key;
    const none = (await createKey(t.deps, w.project.id, { permissions: ['page.read'] })).key;
    const created = await client(t.app, w.key).post('/webhooks', hook);
    const id = created.json<{ id: number }>().id;
    expect((await client(t.app, reader).get('/webhooks')).statusCode).toBe(200);
    expect((await client(t.app, reader).get(`/webhooks/${id}/deliveries`)).statusCode).toBe(200);
    for (const res of [
      await client(t.app, reader).post('/webhooks', hook),
      await client(t.app, reader).delete(`/webhooks/${id}`),
      await client(t.app, none).get('/webhooks'),
      await client(t.app, none).get(`/webhooks/${id}/deliveries`),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(expectErrorShape(res).message).toMatch(/lacks the permission 'webhook\.(read|write)'/);
    }
  });

  it("answers 404 for another project's webhook, and for a deleted one", async () => {
    const mine = await createWorld(t.deps);
    const theirs = await createWorld(t.deps);
    const id = (await client(t.app, theirs.key).post('/webhooks', hook)).json<{ id: number }>().id;
    const api = client(t.app, mine.key);
    expect((await api.delete(`/webhooks/${id}`)).statusCode).toBe(404);
    expect((await api.get(`/webhooks/${id}/deliveries`)).statusCode).toBe(404);
    expect((await api.get('/webhooks')).json()).toEqual({
      data: [],
      cursor: null,
      count: 0,
      total: 0,
      items: [],
    });
    const theirApi = client(t.app, theirs.key);
    const deleted = await theirApi.delete(`/webhooks/${id}`);
    expect([deleted.statusCode, deleted.json()]).toEqual([200, {}]);
    expect((await theirApi.delete(`/webhooks/${id}`)).statusCode).toBe(404);
    expect((await theirApi.get('/webhooks')).json()).toEqual({
      data: [],
      cursor: null,
      count: 0,
      total: 0,
      items: [],
    });
    const [entry] = await auditEntries(t.deps, theirs.project.id);
    expect(entry).toMatchObject({ entity: 'webhook', operation: 'DEL' });
  });

  it('pages the deliveries log newest first with a cursor', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const id = (await api.post('/webhooks', { ...hook, events: ['page.created'] })).json<{ id: number }>().id;
    for (let i = 0; i < 53; i++) {
      await api.post(`/documentation/${w.documentation.id}/page`, { title: `P${i}`, content: 'x' });
    }
    const first = (await api.get(`/webhooks/${id}/deliveries`)).json<{
      items: Array<{ id: string }>;
      cursor: string;
    }>();
    expect(first.items).toHaveLength(50);
    expect(first.items[0]).toMatchObject({
      type: 'page.created',
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      durationMs: null,
      error: null,
      nextAttemptAt: '2026-11-21T10:15:00+0000',
      deliveredAt: null,
      log: [],
    });
    const second = (await api.get(`/webhooks/${id}/deliveries?cursor=${first.cursor}`)).json<{
      items: Array<{ id: string }>;
      cursor: string | null;
    }>();
    expect(second.items).toHaveLength(3);
    expect(second.cursor).toBeNull();
    // The envelope of Quire's lists, with the old field beside it (decision 0035).
    expect(second).toMatchObject({ data: second.items, count: 3 });
    const ids = [...first.items, ...second.items].map((d) => d.id);
    expect(new Set(ids).size).toBe(53);
    expect(ids.every((m) => /^msg_[A-Za-z0-9_-]{24}$/.test(m))).toBe(true);
    expect((await api.get(`/webhooks/${id}/deliveries?cursor=nope`)).statusCode).toBe(400);
  });
});

describe('webhook targets on private networks', () => {
  it('refuses loopback, private, link-local and metadata targets at registration', async () => {
    const app = await buildTestApp({
      env: KEY_ENV,
      overrides: {
        webhookResolver: (host) =>
          Promise.resolve(
            host === 'rebind.example.test'
              ? [
                  { address: '203.0.113.9', family: 4 as const },
                  { address: '10.1.2.3', family: 4 as const },
                ]
              : [{ address: '203.0.113.9', family: 4 as const }],
          ),
      },
    });
    try {
      const w = await createWorld(app.deps);
      const api = client(app.app, w.key);
      for (const url of [
        'http://127.0.0.1:8080/',
        'http://localhost/',
        'http://app.localhost/',
        'http://10.0.0.5/',
        'http://172.20.1.1/',
        'http://192.168.1.1/',
        'http://100.64.0.1/',
        'http://169.254.169.254/latest/meta-data',
        'http://metadata.google.internal/',
        'http://0.0.0.0/',
        'http://[::1]/',
        'http://[fd00::1]/',
        'http://[fe80::1]/',
        'http://[::ffff:127.0.0.1]/',
        'http://[::ffff:a9fe:a9fe]/',
        'http://224.0.0.1/',
        'http://rebind.example.test/',
      ]) {
        const res = await api.post('/webhooks', { url, events: ['page.created'] });
        expect(res.statusCode, url).toBe(400);
        expect(expectErrorShape(res).details, url).toEqual([
          { field: 'body.url', message: expect.any(String) },
        ]);
      }
      const ok = await api.post('/webhooks', {
        url: 'https://public.example.test/',
        events: ['page.created'],
      });
      expect(ok.statusCode).toBe(201);
      const v6 = await api.post('/webhooks', { url: 'https://[2001:db8::1]/', events: ['page.created'] });
      expect(v6.statusCode).toBe(201);
    } finally {
      await app.close();
    }
  });
});

describe('the webhook secret key', () => {
  it('is read from WEBHOOK_SECRET_KEY, which must be base64 of 32 bytes', () => {
    const key = randomBytes(32);
    expect(loadConfig({ WEBHOOK_SECRET_KEY: key.toString('base64') }).webhookSecretKey).toEqual(key);
    for (const bad of ['short', randomBytes(16).toString('base64'), `${key.toString('base64')}!`]) {
      let error: unknown;
      try {
        loadConfig({ WEBHOOK_SECRET_KEY: bad, WEBHOOK_ALLOW_PRIVATE: 'maybe' });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        expect.stringMatching(/^WEBHOOK_SECRET_KEY must be base64 of exactly 32 random bytes/),
        "WEBHOOK_ALLOW_PRIVATE must be 'true' or 'false' (got 'maybe')",
      ]);
      expect((error as ConfigError).message).not.toContain(bad);
    }
  });

  it.runIf(dialectName === 'postgres')(
    'answers 503 on PostgreSQL when WEBHOOK_SECRET_KEY is not set',
    async () => {
      const app = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      try {
        const w = await createWorld(app.deps);
        const res = await client(app.app, w.key).post('/webhooks', hook);
        expect(res.statusCode).toBe(503);
        expect(expectErrorShape(res).message).toMatch(/WEBHOOK_SECRET_KEY/);
        expect((await client(app.app, w.key).get('/webhooks')).json()).toEqual({
          data: [],
          cursor: null,
          count: 0,
          total: 0,
          items: [],
        });
      } finally {
        await app.close();
      }
    },
  );
});
