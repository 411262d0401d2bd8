/**
 * Version clone (N2) of a large version: 10,000 pages of realistic Darkdown (1–8 KB, one in ten with a
 * pending draft; bench/seed-pages.ts), one in five a child of the page before it, on SQLite or, with
 * `--pg`, on PostgreSQL in a schema of this run's own (dropped at the end).
 *
 *   node --import tsx bench/clone.bench.ts [--pages 10000] [--rounds 3] [--port P] [--fixed-port P]
 *        [--fixed-duration 2] [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *
 * `--database-url URL` is the older spelling of `--pg URL`. `--redis` keeps the rate-limit counters in
 * Redis under a key prefix of this run's own, deleted at the end. Ports not given are chosen by the
 * system.
 *
 * The server (`src/main.ts`, as `quire serve` runs) is a child process on `--port`, so that its CPU
 * time and memory are its own. Each round starts with a `--fixed-duration` s run of a plain Fastify
 * route that answers a fixed JSON object (a child process of its own): its req/s, printed with the
 * round, shows how busy the machine was. Then the seeded version is cloned over HTTP
 * (`POST /version/{id}/clone`) while one client updates pages of the source, one request after
 * another. Printed per round and as the median of rounds: the clone's time, the pages it copied, the
 * updates' count, p50 and worst latency meanwhile (an update waits for the clone's write lock, so the
 * worst of them shows how long it is held), the server's RSS at the end and its CPU time during the
 * clone (the updates' included), on PostgreSQL also its database sessions' CPU time.
 *
 * Goal (the newer-operations issue): a 10,000-page clone under 5 s on SQLite and PostgreSQL, the
 * write lock held no longer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/dialect.ts';
import { backendFromArgs, portArg, serverRun } from './fixtures/backend.ts';
import { measureFixed } from './fixtures/fixed-server.ts';
import { arg } from './fixtures/load.ts';
import { RoundTable, SERVER_COLUMNS, sampled, serverFigures } from './fixtures/operations.ts';
import { startQuire } from './fixtures/quire-server.ts';
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
  const fixedSeconds = Number(arg('fixed-duration', '2'));
  const port = await portArg('port');
  const fixedPort = await portArg('fixed-port');
  const backend = backendFromArgs('clone');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-clone-'));
  const databaseUrl = backend.pgUrl ?? `sqlite:${path.join(dir, 'clone.db')}`;
  const { schema } = backend;
  const servers = serverRun(backend, [dir]);
  // This process's own connection: the set-up before the server starts, the pages counted after.
  const handle = openDatabase(databaseUrl, schema !== undefined ? { schema } : {});
  try {
    const seedStarted = performance.now();
    const seeded = await seedPages(databaseUrl, pages, schema);
    const db = handle.db;
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
    process.stdout.write(
      `data: ${pages} pages on ${backend.label}${schema !== undefined ? ` (schema ${schema})` : ''}, ` +
        `seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s\n`,
    );
    const { pid, fixed, sessions } = await startQuire(servers, backend, { databaseUrl, port, fixedPort });
    const base = `http://127.0.0.1:${port}`;
    const table = new RoundTable(
      {
        ms: { title: 'clone ms', digits: 0 },
        copied: { title: 'pages copied', digits: 0 },
        updates: { title: 'updates meanwhile', digits: 0 },
        updateP50Ms: { title: 'update p50 ms', digits: 1 },
        updateWorstMs: { title: 'update worst ms', digits: 0 },
        ...SERVER_COLUMNS,
      },
      (text) => process.stdout.write(text),
    );
    const name = `clone of ${pages} pages, one client updating the source`;
    for (let round = 1; round <= rounds; round++) {
      const reference = await measureFixed(fixed, fixedSeconds);
      let latencies: number[] = [];
      const clone = await sampled(
        pid,
        async () => {
          const cloning = fetch(`${base}/api/v1/version/${version.id}/clone`, {
            method: 'POST',
            headers: { 'x-api-key': seeded.key, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `Clone ${round}` }),
          }).then(async (res) => {
            const body = (await res.json()) as { id?: number };
            if (res.status !== 201) throw new Error(`clone answered ${res.status}: ${JSON.stringify(body)}`);
            return body.id ?? 0;
          });
          latencies = await updateWhile(base, seeded.key, seeded.pageIds, cloning);
          return cloning;
        },
        sessions,
      );
      const copied = await db
        .selectFrom('pages as p')
        .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('d.version_id', '=', clone.value)
        .executeTakeFirstOrThrow();
      table.round(round, rounds, reference, [
        [
          name,
          {
            ms: clone.ms,
            copied: Number(copied.n),
            updates: latencies.length,
            updateP50Ms: percentile(latencies, 50),
            updateWorstMs: percentile(latencies, 100),
            ...serverFigures(clone),
          },
        ],
      ]);
    }
    const ms = table.medians().get(name)?.ms ?? Number.NaN;
    const verdict = pages < 10_000 ? 'not judged below 10,000 pages' : ms < 5000 ? 'met' : 'NOT met';
    process.stdout.write(
      `\ngoal (a clone of 10,000 pages under 5 s): ${verdict} (median ${ms.toFixed(0)} ms for ${pages} pages)\n`,
    );
  } finally {
    await handle.close();
    await servers.cleanUp();
  }
}

await main();
