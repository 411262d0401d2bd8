import net from 'node:net';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { checkAnswers } from './helpers/answer-check.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps, type Deps } from '../src/deps.ts';
import { MemoryCounterStore } from '../src/ratelimit/memory-store.ts';
import { createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, TEST_DATABASE_URL, useTestApp } from './helpers/test-app.ts';

/** A "database" that accepts connections and never says a word: a hung server. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const elapsed = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await run();
  return [result, performance.now() - started];
};

describe('a database that does not answer', () => {
  let hung: Awaited<ReturnType<typeof silentServer>>;
  let deps: Deps;
  let app: Awaited<ReturnType<typeof buildApp>>;

  beforeEach(async () => {
    hung = await silentServer();
    const config = loadConfig({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${hung.port}/quire`,
      DATABASE_CONNECT_TIMEOUT: '500',
      DATABASE_STATEMENT_TIMEOUT: '500',
      QUIRE_BOOTSTRAP: 'false',
      LOG_LEVEL: 'silent',
    });
    deps = createDeps(config, { counters: new MemoryCounterStore() });
    app = await buildApp(deps, { logger: false, instrument: checkAnswers() });
  });

  afterEach(async () => {
    await app.close();
    await deps.close();
    await hung.close();
  });

  it('answers /readyz with 503 within 2 s', async () => {
    const [res, ms] = await elapsed(() => client(app).get('/readyz'));
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'unavailable' });
    expect(ms).toBeLessThan(2000);
  });

  it('answers API requests with 503, the envelope and Retry-After, in bounded time', async () => {
    const [res, ms] = await elapsed(() => client(app, 'qk_' + 'a'.repeat(43)).get('/version'));
    expect(res.statusCode).toBe(503);
    expect(expectErrorShape(res).message).toMatch(/database is unavailable/);
    expect(res.headers['retry-after']).toBe('2');
    expect(ms).toBeLessThan(3000);
    // The process goes on answering what needs no database.
    expect((await client(app).get('/healthz')).statusCode).toBe(200);
  });
});

// These need a PostgreSQL server to misbehave on purpose; they run where TEST_DATABASE_URL is set
// (CI's PostgreSQL leg).
if (TEST_DATABASE_URL) {
  describe('PostgreSQL connections that go away', () => {
    const t = useTestApp({ env: { DATABASE_STATEMENT_TIMEOUT: '500' } });

    /** An outside session, as an operator or another instance has one. */
    async function outside(): Promise<pg.Client> {
      const other = new pg.Client({ connectionString: t.storage.databaseUrl });
      await other.connect();
      return other;
    }

    /** pg_terminate_backend on every session of this app's pool; returns how many there were. */
    async function terminatePool(): Promise<number> {
      const other = await outside();
      try {
        const result = await other.query<{ pid: number }>(
          'select pg_terminate_backend(pid) as pid from pg_stat_activity where application_name = $1',
          [`quire ${t.storage.schema}`],
        );
        return result.rowCount ?? 0;
      } finally {
        await other.end();
      }
    }

    it('survives its backends being terminated mid-traffic, and the next request is a 200', async () => {
      const w = await createWorld(t.deps);
      const api = client(t.app, w.key);
      const page = (
        await api.post(`/documentation/${w.documentation.id}/page`, { title: 'P', content: 'x' })
      ).json();
      const traffic = Array.from({ length: 40 }, (_, i) =>
        new Promise((resolve) => setTimeout(resolve, i * 5)).then(() =>
          api.get(`/page/${page.id}?format=html`),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await terminatePool()).toBeGreaterThan(0);
      const answers = await Promise.all(traffic);
      for (const res of answers) {
        expect([200, 503]).toContain(res.statusCode);
        if (res.statusCode === 503) {
          expectErrorShape(res);
          expect(res.headers['retry-after']).toBeDefined();
        }
      }
      expect((await api.get(`/page/${page.id}`)).statusCode).toBe(200);

      // Idle connections killed while nobody waits on them: the pool reports, drops, replaces.
      expect(await terminatePool()).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await api.get(`/page/${page.id}`)).statusCode).toBe(200);
      expect((await client(t.app).get('/readyz')).statusCode).toBe(200);
    });

    it('gives up a statement blocked past the statement timeout with a 503, then serves again', async () => {
      const w = await createWorld(t.deps);
      const api = client(t.app, w.key);
      const blocker = await outside();
      try {
        await blocker.query(`set search_path = ${t.storage.schema}`);
        await blocker.query('begin');
        await blocker.query('select id from documentation where id = $1 for update', [w.documentation.id]);
        const [blocked, ms] = await elapsed(() =>
          api.post(`/documentation/${w.documentation.id}/page`, { title: 'Blocked', content: 'x' }),
        );
        expect(blocked.statusCode).toBe(503);
        expect(expectErrorShape(blocked).message).toMatch(/did not answer in time/);
        expect(ms).toBeLessThan(3000);
      } finally {
        await blocker.query('rollback');
        await blocker.end();
      }
      const created = await api.post(`/documentation/${w.documentation.id}/page`, {
        title: 'Free',
        content: 'x',
      });
      expect(created.statusCode).toBe(200);
      const all = (await api.get('/all')).json();
      expect(Object.values(all.page).map((p) => (p as { title: string }).title)).toEqual(['Free']);
    });
  });

  describe('a create that waits for its group, then for the section lock', () => {
    const TIMEOUT_MS = 1_000;
    const t = useTestApp({ env: { DATABASE_STATEMENT_TIMEOUT: String(TIMEOUT_MS) } });

    it('is refused after one statement timeout in all, not one per wait', async () => {
      const w = await createWorld(t.deps);
      const api = client(t.app, w.key);
      const blocker = new pg.Client({ connectionString: t.storage.databaseUrl });
      await blocker.connect();
      try {
        await blocker.query(`set search_path = ${t.storage.schema}`);
        await blocker.query('begin');
        await blocker.query('select id from documentation where id = $1 for update', [w.documentation.id]);
        // The first waits for the lock; those sent while it waits wait for it, then for the lock
        // (the later one sent, the less is left of its timeout when its group starts).
        const creates = [0, 300, 600].map(async (delay, i) => {
          await new Promise((resolve) => setTimeout(resolve, delay));
          return elapsed(() =>
            api.post(`/documentation/${w.documentation.id}/page`, { title: `Held ${i}`, content: 'x' }),
          );
        });
        for (const [res, ms] of await Promise.all(creates)) {
          expect(res.statusCode).toBe(503);
          expectErrorShape(res);
          expect(res.headers['retry-after']).toBe('2');
          expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS * 0.9);
          expect(ms).toBeLessThan(TIMEOUT_MS * 1.6);
        }
      } finally {
        await blocker.query('rollback');
        await blocker.end();
      }
      // The bound was the transaction's alone: a create now takes its time as before.
      const created = await api.post(`/documentation/${w.documentation.id}/page`, {
        title: 'Free',
        content: 'x',
      });
      expect(created.statusCode).toBe(200);
      const all = (await api.get('/all')).json();
      expect(Object.values(all.page).map((p) => (p as { title: string }).title)).toEqual(['Free']);
    });
  });
}
