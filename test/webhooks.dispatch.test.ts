import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResolvedAddress } from '../src/modules/webhooks/webhook-address.ts';
import { createWorld } from './helpers/factories.ts';
import { buildTestApp, client, dialectName, type TestApp } from './helpers/test-app.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';

const KEY_ENV: Record<string, string> =
  dialectName === 'postgres' ? { WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') } : {};
const ENV = { ...KEY_ENV, WEBHOOK_ALLOW_PRIVATE: 'true' };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function app(options: Parameters<typeof buildTestApp>[0]): Promise<TestApp> {
  const built = await buildTestApp(options);
  cleanups.push(() => built.close());
  return built;
}

async function receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(respond);
  cleanups.push(() => started.close());
  return started;
}

async function webhook(t: TestApp, key: string, url: string) {
  const res = await client(t.app, key).post('/webhooks', { url, events: ['page.created'] });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: number }>().id;
}

const createPage = (t: TestApp, w: Awaited<ReturnType<typeof createWorld>>, title: string) =>
  client(t.app, w.key).post(`/documentation/${w.documentation.id}/page`, { title, content: 'x' });

describe('the webhook dispatcher', () => {
  it('checks the address again at delivery: a name that now resolves to loopback reaches nothing', async () => {
    let answer: ResolvedAddress[] = [{ address: '203.0.113.20', family: 4 }];
    const t = await app({
      env: { ...KEY_ENV, WEBHOOK_TIMEOUT: '1000' },
      overrides: { webhookResolver: () => Promise.resolve(answer) },
    });
    const target = await receiver();
    const w = await createWorld(t.deps);
    const id = await webhook(t, w.key, `http://hooks.example.test:${target.port}/`);
    // DNS rebinding: public when registered, the receiver's loopback address when sent.
    answer = [{ address: '127.0.0.1', family: 4 }];
    await createPage(t, w, 'Rebound');
    expect(await t.deps.webhookDispatcher.drain()).toBe(1);
    const [delivery] = (await client(t.app, w.key).get(`/webhooks/${id}/deliveries`)).json<{
      items: Array<{ status: string; error: string; lastStatusCode: null }>;
    }>().items;
    expect(delivery).toMatchObject({ status: 'pending', lastStatusCode: null });
    expect(delivery!.error).toMatch(/resolves only to loopback, private, link-local or reserved addresses/);
    expect(target.received).toHaveLength(0);
  });

  it('refuses an IP literal target at delivery when private targets are not allowed', async () => {
    // Registered while allowed, sent by an instance where they are not: the literal never goes to lookup.
    const open = await app({ env: ENV });
    const target = await receiver();
    const w = await createWorld(open.deps);
    const id = await webhook(open, w.key, target.url());
    const strict = await app({ env: KEY_ENV, sharedWith: open });
    await createPage(strict, w, 'Literal');
    expect(await strict.deps.webhookDispatcher.drain()).toBe(1);
    const [delivery] = (await client(strict.app, w.key).get(`/webhooks/${id}/deliveries`)).json<{
      items: Array<{ error: string }>;
    }>().items;
    expect(delivery!.error).toMatch(/127\.0\.0\.1 is a loopback, private or internal address; refused/);
    expect(target.received).toHaveLength(0);
  });

  it('sends promptly after a commit, without waiting for the poll', async () => {
    const t = await app({ env: { ...ENV, WEBHOOK_POLL_INTERVAL: '60000' } });
    const target = await receiver();
    const w = await createWorld(t.deps);
    await webhook(t, w.key, target.url());
    t.deps.webhookDispatcher.start();
    const committed = performance.now();
    await createPage(t, w, 'Prompt');
    const [received] = await target.waitFor(1, 3_000);
    expect(received!.at - committed).toBeLessThan(1_000);
  });

  it('keeps answering requests and serving other webhooks while a receiver never answers', async () => {
    const t = await app({ env: { ...ENV, WEBHOOK_TIMEOUT: '30000', WEBHOOK_CONCURRENCY: '2' } });
    const slow = await receiver(() => 'hang');
    const fast = await receiver();
    const w = await createWorld(t.deps);
    await webhook(t, w.key, slow.url());
    t.deps.webhookDispatcher.start();
    // More stuck deliveries than a claim looks at: they must not hide the other webhook's.
    for (let i = 0; i < 12; i++) await createPage(t, w, `Stuck ${i}`);
    await slow.waitFor(1);
    const other = await createWorld(t.deps);
    await webhook(t, other.key, fast.url());
    const started = performance.now();
    for (let i = 0; i < 10; i++) expect((await client(t.app, w.key).get('/webhooks')).statusCode).toBe(200);
    expect((await createPage(t, other, 'Elsewhere')).statusCode).toBe(200);
    await fast.waitFor(1, 3_000);
    expect(performance.now() - started).toBeLessThan(3_000);
    // Half the slots at most for one webhook: the slow one holds one of two.
    expect(slow.received).toHaveLength(1);
  });

  it('never sends the pending deliveries of a deleted webhook', async () => {
    const t = await app({ env: ENV });
    const target = await receiver();
    const w = await createWorld(t.deps);
    const id = await webhook(t, w.key, target.url());
    await createPage(t, w, 'Gone');
    expect((await client(t.app, w.key).delete(`/webhooks/${id}`)).statusCode).toBe(200);
    expect(await t.deps.webhookDispatcher.drain()).toBe(0);
    expect(target.received).toHaveLength(0);
    const row = await t.deps.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', last_error: 'The webhook was deleted.' });
  });

  it("takes over a crashed instance's delivery once its lease has expired", async () => {
    const t = await app({ env: ENV });
    const target = await receiver();
    const w = await createWorld(t.deps);
    await webhook(t, w.key, target.url());
    await createPage(t, w, 'Leased');
    // What a crash leaves: a lease taken, never ended.
    const lease = new Date(t.clock.now() + 70_000).toISOString();
    await t.deps.database.db
      .updateTable('webhook_deliveries')
      .set({ claimed_until: lease, claim_token: 'crashed' })
      .execute();
    expect(await t.deps.webhookDispatcher.drain()).toBe(0);
    t.clock.advance(70_001);
    expect(await t.deps.webhookDispatcher.drain()).toBe(1);
    expect(target.received).toHaveLength(1);
  });
});

describe.runIf(dialectName === 'postgres')('two instances on PostgreSQL', () => {
  it('deliver every event exactly once between them', async () => {
    const first = await app({ env: ENV });
    const second = await app({ env: ENV, sharedWith: first });
    const target = await receiver();
    const w = await createWorld(first.deps);
    await webhook(first, w.key, target.url());
    const events = 60;
    const writes: Array<Promise<unknown>> = [];
    for (let i = 0; i < events; i++) writes.push(createPage(i % 2 === 0 ? first : second, w, `Page ${i}`));
    await Promise.all(writes);
    // Both claim at once, round after round, until nothing is left.
    for (let round = 0; round < 200 && target.received.length < events; round++) {
      await Promise.all([first.deps.webhookDispatcher.runOnce(), second.deps.webhookDispatcher.runOnce()]);
    }
    first.deps.webhookDispatcher.start();
    second.deps.webhookDispatcher.start();
    await target.waitFor(events);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = target.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(events);
    expect(new Set(ids).size).toBe(events);
  });
});
