import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { buildTestApp, client, dialectName, useTestApp, type TestApp } from './helpers/test-app.ts';
import { startReceiver, verifyWebhook, type Receiver } from './helpers/webhook-receiver.ts';

// The outbox on SQLite keeps each project's webhooks under the project's webhook stamp (migration
// 0018), and these tests see its lookups in the metrics. On PostgreSQL the outbox finds the webhooks
// in the statement that writes the deliveries, keeps nothing, and the same deliveries are expected.

/** Two instances over one database share the key (PostgreSQL needs one; SQLite uses the key file). */
const ENV: Record<string, string> = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  ...(dialectName === 'postgres' ? { WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') } : {}),
};
const t = useTestApp({ env: ENV });
const sqlite = dialectName === 'sqlite';

const closing: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close();
});

/** A receiver of its own per webhook, so that what each webhook was sent is told apart. */
async function receiver(): Promise<Receiver> {
  const made = await startReceiver();
  closing.push(made);
  return made;
}

/** A second instance over this test's database: other connections to the same SQLite file. */
async function otherInstance(): Promise<TestApp> {
  const other = await buildTestApp({ sharedWith: t, env: ENV });
  closing.push(other);
  return other;
}

type Api = ReturnType<typeof client>;

async function createHook(api: Api, to: Receiver) {
  const res = await api.post('/webhooks', { url: to.url(), events: ['page.created'] });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: number; secret: string }>();
}

let made = 0;
async function createPage(api: Api, documentationId: number): Promise<number> {
  const res = await api.post(`/documentation/${documentationId}/page`, {
    title: `Page ${++made}`,
    content: 'x',
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ id: number }>().id;
}

/** The ids of the pages whose creation a receiver was sent, in increasing order (pages are not ordered). */
const pagesSent = (to: Receiver): number[] =>
  to.received.map((r) => (JSON.parse(r.body) as { data: { id: number } }).data.id).sort((a, b) => a - b);

/** An instance's lookups of kept webhooks so far, read from its metrics. */
async function lookups(app: TestApp): Promise<{ hits: number; misses: number }> {
  const res = await app.app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  const read = (name: string) => {
    const line = res.body.split('\n').find((l) => l.startsWith(`${name}{cache="webhook_subscriptions"} `));
    if (line === undefined) throw new Error(`no ${name} for webhook_subscriptions`);
    return Number(line.split(' ')[1]);
  };
  return { hits: read('quire_cache_hits_total'), misses: read('quire_cache_misses_total') };
}

/** The lookups `app` made while `run` ran. */
async function lookupsDuring(app: TestApp, run: () => Promise<unknown>) {
  const before = await lookups(app);
  await run();
  const after = await lookups(app);
  return { hits: after.hits - before.hits, misses: after.misses - before.misses };
}

/** The project's webhook stamp as committed; 0 when it has no row. */
async function stampOf(projectId: number): Promise<number> {
  const row = await t.deps.database.db
    .selectFrom('webhook_stamps')
    .select('stamp')
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.stamp ?? 0);
}

describe("the outbox keeps each project's webhooks under the project's webhook stamp", () => {
  it('delivers to a webhook another instance created, from the next change here', async () => {
    const w = await createWorld(t.deps);
    const here = client(t.app, w.key);
    const there = client((await otherInstance()).app, w.key);
    const to = await receiver();
    // This instance keeps the project's webhooks (none), then the other one creates one.
    await createPage(here, w.documentation.id);
    const seen = await lookupsDuring(t, () => createPage(here, w.documentation.id));
    expect(seen).toEqual(sqlite ? { hits: 1, misses: 0 } : { hits: 0, misses: 0 });
    const hook = await createHook(there, to);

    const page = await createPage(here, w.documentation.id);
    expect(await t.deps.webhookDispatcher.drain()).toBe(1);
    expect(pagesSent(to)).toEqual([page]);
    const now = Math.floor(t.clock.now() / 1000);
    expect(verifyWebhook(hook.secret, to.received[0]!.headers, to.received[0]!.body, now).type).toBe(
      'page.created',
    );
  });

  it.runIf(sqlite)('delivers to a webhook bin/quire created in another process', async () => {
    const w = await createWorld(t.deps);
    const here = client(t.app, w.key);
    const to = await receiver();
    await createPage(here, w.documentation.id);
    const run = promisify(execFile);
    const created = await run(
      path.resolve('bin/quire'),
      ['webhook', 'create', '--project', String(w.project.id), '--url', to.url(), '--events', 'page.created'],
      {
        env: { ...process.env, DATABASE_URL: t.storage.databaseUrl, WEBHOOK_ALLOW_PRIVATE: 'true' },
      },
    );
    const hook = JSON.parse(created.stdout) as { id: number; secret: string };

    const seen = await lookupsDuring(t, async () => {
      const page = await createPage(here, w.documentation.id);
      expect(await t.deps.webhookDispatcher.drain()).toBe(1);
      expect(pagesSent(to)).toEqual([page]);
    });
    // The webhook stamp moved in the other process: the webhooks were read again.
    expect(seen).toEqual({ hits: 0, misses: 1 });
    const now = Math.floor(t.clock.now() / 1000);
    expect(verifyWebhook(hook.secret, to.received[0]!.headers, to.received[0]!.body, now).type).toBe(
      'page.created',
    );
  });

  it("keeps a project's webhooks through other instances' writes that touch none of them", async () => {
    const one = await createWorld(t.deps);
    const two = await createWorld(t.deps);
    const hereOne = client(t.app, one.key);
    const hereTwo = client(t.app, two.key);
    const toOne = await receiver();
    const toTwo = await receiver();
    await createHook(hereOne, toOne);
    await createHook(hereTwo, toTwo);
    const first = [
      await createPage(hereOne, one.documentation.id),
      await createPage(hereOne, one.documentation.id),
    ];
    const second = [
      await createPage(hereTwo, two.documentation.id),
      await createPage(hereTwo, two.documentation.id),
    ];

    // Another instance writes to both projects: a page and a version of the first, and in the second
    // a page and a new webhook.
    const other = await otherInstance();
    const thereOne = client(other.app, one.key);
    const thereTwo = client(other.app, two.key);
    const stamps = [await stampOf(one.project.id), await stampOf(two.project.id)];
    const fromThere = await createPage(thereOne, one.documentation.id);
    const renamed = await thereOne.put(`/version/${one.version.id}`, { name: 'Renamed' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    await createPage(thereTwo, two.documentation.id);
    const toNew = await receiver();
    await createHook(thereTwo, toNew);
    expect([await stampOf(one.project.id), await stampOf(two.project.id)]).toEqual([
      stamps[0],
      stamps[1]! + 1,
    ]);

    // Here, the first project's webhooks are still served as they were kept; the second's are read
    // again, its webhook stamp having moved.
    const seen = await lookupsDuring(t, async () => {
      first.push(await createPage(hereOne, one.documentation.id));
    });
    expect(seen).toEqual(sqlite ? { hits: 1, misses: 0 } : { hits: 0, misses: 0 });
    let last = 0;
    const seenTwo = await lookupsDuring(t, async () => {
      last = await createPage(hereTwo, two.documentation.id);
    });
    expect(seenTwo).toEqual(sqlite ? { hits: 0, misses: 1 } : { hits: 0, misses: 0 });

    await t.deps.webhookDispatcher.drain();
    expect(pagesSent(toOne)).toEqual([...first, fromThere].sort((a, b) => a - b));
    expect(pagesSent(toTwo)).toHaveLength(second.length + 2);
    expect(pagesSent(toNew)).toEqual([last]);
  });

  it('stops delivering to a webhook another instance deleted, from the next change here', async () => {
    const w = await createWorld(t.deps);
    const here = client(t.app, w.key);
    const toKept = await receiver();
    const toDeleted = await receiver();
    await createHook(here, toKept);
    const doomed = await createHook(here, toDeleted);
    const before = [await createPage(here, w.documentation.id), await createPage(here, w.documentation.id)];
    await t.deps.webhookDispatcher.drain();
    expect(pagesSent(toDeleted)).toEqual(before);

    const there = client((await otherInstance()).app, w.key);
    expect((await there.delete(`/webhooks/${doomed.id}`)).statusCode).toBe(200);
    const after = await createPage(here, w.documentation.id);
    await t.deps.webhookDispatcher.drain();
    expect(pagesSent(toKept)).toEqual([...before, after]);
    expect(pagesSent(toDeleted)).toEqual(before);
  });

  it("moves the stamp only with the project's webhooks, once per transaction on PostgreSQL", async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const to = await receiver();
    expect(await stampOf(w.project.id)).toBe(0);
    const a = await createHook(api, to);
    await createHook(api, to);
    expect(await stampOf(w.project.id)).toBe(2);
    await createPage(api, w.documentation.id);
    expect(await stampOf(w.project.id)).toBe(2);
    // Two rows in one statement: a bump per row on SQLite, one for the transaction on PostgreSQL.
    await t.deps.database.db
      .updateTable('webhooks')
      .set({ description: 'Both' })
      .where('project_id', '=', w.project.id)
      .execute();
    expect(await stampOf(w.project.id)).toBe(sqlite ? 4 : 3);
    const stamp = await stampOf(w.project.id);
    expect((await api.delete(`/webhooks/${a.id}`)).statusCode).toBe(200);
    expect(await stampOf(w.project.id)).toBe(stamp + 1);
  });
});
