/**
 * Version clone (N2) of a large version: 10,000 pages of realistic Darkdown (1–8 KB, one in ten with a
 * pending draft; bench/seed-pages.ts), one in five a child of the page before it, on SQLite or, with
 * `--database-url postgres://…`, on PostgreSQL in a schema of its own (dropped afterwards).
 *
 *   node --import tsx bench/clone.bench.ts [--pages 10000] [--rounds 3] [--port P]
 *        [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *
 * `--database-url URL` is the older spelling of `--pg URL`. `--redis` keeps the rate-limit counters in
 * Redis under a key prefix of this run's own, deleted at the end. The port, when not given, is chosen
 * by the system.
 *
 * The server runs in this process on `--port`. Each round clones the seeded version over HTTP
 * (`POST /version/{id}/clone`) while one client updates pages of the source, one request after
 * another: printed are the clone's time, the pages it copied, and the updates' latencies meanwhile
 * (an update waits for the clone's write lock, so the worst of them shows how long it is held).
 *
 * Goal (the newer-operations issue): a 10,000-page clone under 5 s on SQLite and PostgreSQL, the
 * write lock held no longer.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { backendFromArgs } from './fixtures/backend.ts';
import { arg } from './fixtures/load.ts';
import { seedPages } from './seed-pages.ts';

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

/** Page updates, one after another, until `until` settles: every latency in ms. */
async function updateWhile(
  base: string,
  key: string,
  ids: number[],
  until: Promise<unknown>,
): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  for (let n = 0; !done; n++) {
    const id = ids[n % ids.length] ?? 1;
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/page/${id}`, {
      method: 'PUT',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ content: `Edited during a clone (${n}).` }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`page update answered ${res.status}`);
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const pages = Number(arg('pages', '10000'));
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const backend = backendFromArgs('clone');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-clone-'));
  const databaseUrl = backend.pgUrl ?? `sqlite:${path.join(dir, 'clone.db')}`;
  const { schema } = backend;
  const seedStarted = performance.now();
  const seeded = await seedPages(databaseUrl, pages, schema);
  const deps = createDeps(
    loadConfig({
      DATABASE_URL: databaseUrl,
      ...(backend.redisUrl !== null ? { REDIS_URL: backend.redisUrl } : {}),
      QUIRE_BOOTSTRAP: 'false',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_SCALE: '1000000',
    }),
    { redisPrefix: backend.redisPrefix, ...(schema !== undefined ? { schema } : {}) },
  );
  const app = await buildApp(deps, { logger: false });
  try {
    const db = deps.database.db;
    // One page in five becomes a child of the page before it, when that one is in its section.
    await sql`update pages set parent_page_id = id - 1
      where id % 5 = 0 and exists (
        select 1 from pages q where q.id = pages.id - 1 and q.documentation_id = pages.documentation_id
      )`.execute(db);
    const version = await db
      .selectFrom('versions')
      .select('id')
      .where('slug', '=', 'v1')
      .executeTakeFirstOrThrow();
    await app.listen({ host: '127.0.0.1', port: Number(arg('port', '0')) });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    process.stdout.write(
      `data: ${pages} pages on ${backend.label}, seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s\n`,
    );
    for (let round = 1; round <= rounds; round++) {
      const started = performance.now();
      const cloning = fetch(`${base}/api/v1/version/${version.id}/clone`, {
        method: 'POST',
        headers: { 'x-api-key': seeded.key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Clone ${round}` }),
      }).then(async (res) => {
        const body = (await res.json()) as { id?: number };
        if (res.status !== 201) throw new Error(`clone answered ${res.status}: ${JSON.stringify(body)}`);
        return { id: body.id ?? 0, ms: performance.now() - started };
      });
      const latencies = await updateWhile(base, seeded.key, seeded.pageIds, cloning);
      const clone = await cloning;
      const copied = await db
        .selectFrom('pages as p')
        .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('d.version_id', '=', clone.id)
        .executeTakeFirstOrThrow();
      process.stdout.write(
        `round ${round}: clone ${clone.ms.toFixed(0)} ms, ${Number(copied.n)} pages copied; ` +
          `${latencies.length} page updates meanwhile, p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
          `worst ${percentile(latencies, 100).toFixed(0)} ms\n`,
      );
    }
  } finally {
    await app.close();
    await deps.close();
    await backend.cleanUp();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
