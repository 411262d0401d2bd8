/**
 * The broken-links report (N4) of a large version: 10,000 pages of generated Darkdown (about 2–5 KB,
 * about nine links each, about one in twenty broken; bench/fixtures/link-pages.ts), one in ten with a
 * pending draft, one section in twenty unpublished, on SQLite or, with `--pg`, on PostgreSQL in a
 * schema of this run's own (dropped at the end).
 *
 *   node --import tsx bench/broken-links.bench.ts [--pages 10000] [--rounds 3] [--port P] [--fixed-port P]
 *        [--fixed-duration 2] [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *
 * `--database-url URL` is the older spelling of `--pg URL`. `--redis` keeps the rate-limit counters in
 * Redis under a key prefix of this run's own, deleted at the end. Ports not given are chosen by the
 * system.
 *
 * The server runs in a child process on `--port` (this file, run with `--serve`), so that its CPU time
 * and memory are its own, with one worker thread kept warm as `quire serve` keeps it; this process
 * drives it over HTTP and, for what has no route (forgetting every scan, waiting for the background
 * work, queueing a version's scan), over a message channel. Scans are kept in memory by source and
 * project variables, and stored (link_scans) under the same keys: new variables make every kept scan
 * useless, as if none had ever been made.
 *
 * Each round starts with a `--fixed-duration` s run of a plain Fastify route that answers a fixed JSON
 * object (a child process of its own): its req/s, printed with the round, shows how busy the machine
 * was. Then `GET /version/{id}/broken-links` is asked:
 *
 * - with nothing stored and nothing cached (the fallback: contents Quire did not write, like these,
 *   which are inserted directly), then the scans it made are stored in the background (timed), then
 *   it is asked again with every scan cached in memory, then with nothing stored or cached while one
 *   client reads `GET /version` one request after another (how long the event loop was held);
 * - with the scans stored as pages written through Quire have them (a clone or an import queues its
 *   version for the background scan, an edit its page): the version is queued with the warmer, whose
 *   background scan is timed (with the same reading client), then the report is asked with nothing
 *   cached in memory.
 *
 * Printed per round and as the median of rounds, per step: its time, the report's findings and size,
 * the scans stored, the reading client's requests with their p50 and worst latency, the server's RSS
 * at the end and its CPU time (on PostgreSQL also its database sessions' CPU time).
 *
 * Goal (the newer-operations issue): under 2 s for 10,000 pages on SQLite and PostgreSQL.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { backendFromArgs, portArg, serverRun } from './fixtures/backend.ts';
import { measureFixed, startFixedServer } from './fixtures/fixed-server.ts';
import { seedLinkPages } from './fixtures/link-pages.ts';
import { arg, forkChild } from './fixtures/load.ts';
import { RoundTable, SERVER_COLUMNS, sampled, serverFigures } from './fixtures/operations.ts';
import { waitFor } from './fixtures/wait.ts';

const HERE = fileURLToPath(import.meta.url);

/** What the server child is told at its start (as JSON in BENCH_LINKS). */
interface ServerSetup {
  databaseUrl: string;
  schema: string | undefined;
  redisUrl: string | null;
  redisPrefix: string;
  port: number;
  projectId: number;
  versionId: number;
}
type Operation = 'forget' | 'idle' | 'queue' | 'state';
interface Reply {
  id: number;
  result?: unknown;
  error?: string;
}

const configFor = (databaseUrl: string, redisUrl: string | null) =>
  loadConfig({
    DATABASE_URL: databaseUrl,
    ...(redisUrl !== null ? { REDIS_URL: redisUrl } : {}),
    QUIRE_BOOTSTRAP: 'false',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_SCALE: '1000000',
  });

/** The child: the server, and the operations this process asks for over the channel. */
async function serve(setup: ServerSetup): Promise<void> {
  // As `quire serve` runs: one worker thread kept alive, warmed before the first request.
  const deps = createDeps(configFor(setup.databaseUrl, setup.redisUrl), {
    workerMinThreads: 1,
    redisPrefix: setup.redisPrefix,
    ...(setup.schema !== undefined ? { schema: setup.schema } : {}),
  });
  const app = await buildApp(deps, { logger: false });
  await deps.workers.warm();
  const db = deps.database.db;
  let generation = 0;
  const operations: Record<Operation, () => Promise<unknown>> = {
    // New variables: no scan kept in memory or stored matches any more; the store emptied as well.
    forget: async () => {
      await db
        .updateTable('projects')
        .set({ variables: JSON.stringify({ bench: ++generation }) })
        .where('id', '=', setup.projectId)
        .execute();
      await db.deleteFrom('link_scans').execute();
    },
    // The background work under way, timed here: what a report made being stored, or a version's scan.
    idle: async () => {
      const started = performance.now();
      await deps.linkScans.idle();
      return performance.now() - started;
    },
    queue: async () => deps.linkScans.queueVersion(setup.projectId, setup.versionId),
    state: async () => {
      const stored = await db
        .selectFrom('link_scans')
        .select((eb) => eb.fn.countAll<string | number>().as('count'))
        .executeTakeFirstOrThrow();
      return { stored: Number(stored.count), failures: deps.linkScans.failures };
    },
  };
  process.on('message', (message: { id: number; operation: Operation }) => {
    operations[message.operation]().then(
      (result) => process.send?.({ id: message.id, result } satisfies Reply),
      (error: unknown) =>
        process.send?.({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void app
      .close()
      .then(() => deps.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('disconnect', stop);
  await app.listen({ host: '127.0.0.1', port: setup.port });
}

/** Asks the server child for an operation and waits for its answer. */
function channel(child: ChildProcess) {
  let next = 0;
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  child.on('message', (reply: Reply) => {
    const call = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (reply.error !== undefined) call?.reject(new Error(reply.error));
    else call?.resolve(reply.result);
  });
  return <T>(operation: Operation): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve: (value) => resolve(value as T), reject });
      child.send({ id, operation });
    });
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

/** `GET /version`, one after another, until `until` settles: every latency in ms. */
async function readWhile(base: string, key: string, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  while (!done) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/version`, { headers: { 'x-api-key': key } });
    await res.arrayBuffer();
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
  const backend = backendFromArgs('links');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-links-'));
  const databaseUrl = backend.pgUrl ?? `sqlite:${path.join(dir, 'links.db')}`;
  const { schema } = backend;
  const { children, databaseCpu, cleanUp } = serverRun(backend, [dir]);
  try {
    const seedStarted = performance.now();
    const seedDeps = createDeps(configFor(databaseUrl, null), schema !== undefined ? { schema } : {});
    let seeded: Awaited<ReturnType<typeof seedLinkPages>>;
    try {
      await upgradeDatabase(seedDeps.database, schema);
      seeded = await seedLinkPages(seedDeps, pages);
    } finally {
      await seedDeps.close();
    }
    process.stdout.write(
      `data: ${pages} pages of ${seeded.averageKb.toFixed(1)} KB on average on ${backend.label}` +
        `${schema !== undefined ? ` (schema ${schema})` : ''}, ` +
        `seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s\n`,
    );
    const setup: ServerSetup = {
      databaseUrl,
      schema,
      redisUrl: backend.redisUrl,
      redisPrefix: backend.redisPrefix,
      port,
      projectId: seeded.projectId,
      versionId: seeded.versionId,
    };
    const server = forkChild(HERE, ['--serve'], { BENCH_LINKS: JSON.stringify(setup) });
    children.push(server);
    const pid = server.pid;
    if (pid === undefined) throw new Error('the server did not start');
    const ask = channel(server);
    const base = `http://127.0.0.1:${port}`;
    const [fixed] = await Promise.all([
      startFixedServer(fixedPort, children),
      waitFor(`${base}/readyz`, 120_000, server),
    ]);
    // On PostgreSQL the server's pool names its sessions after the schema (the seeding's are closed).
    const sessions =
      databaseCpu !== null && schema !== undefined ? () => databaseCpu.cpuMs(`quire ${schema}`) : undefined;
    const reportOnce = async () => {
      const res = await fetch(`${base}/api/v1/version/${seeded.versionId}/broken-links`, {
        headers: { 'x-api-key': seeded.key },
      });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`report answered ${res.status}: ${body.slice(0, 300)}`);
      return body;
    };
    const table = new RoundTable(
      {
        ms: { title: 'ms', digits: 0 },
        findings: { title: 'findings', digits: 0 },
        errors: { title: 'of them errors', digits: 0 },
        reportMiB: { title: 'report MiB', digits: 1 },
        stored: { title: 'scans stored', digits: 0 },
        reads: { title: 'GET /version meanwhile', digits: 0 },
        readP50Ms: { title: 'read p50 ms', digits: 1 },
        readWorstMs: { title: 'read worst ms', digits: 0 },
        ...SERVER_COLUMNS,
      },
      (text) => process.stdout.write(text),
    );
    const cold = 'report, nothing stored, nothing cached';
    const fromStore = 'report, scans stored (pages written through Quire), nothing cached';
    for (let round = 1; round <= rounds; round++) {
      const reference = await measureFixed(fixed, fixedSeconds);
      const on = <T>(work: () => Promise<T>) => sampled(pid, work, sessions);
      const withReader = async <T>(work: () => Promise<T>) => {
        let latencies: number[] = [];
        const run = await on(async () => {
          const running = work();
          latencies = await readWhile(base, seeded.key, running);
          return running;
        });
        const reads = {
          reads: latencies.length,
          readP50Ms: percentile(latencies, 50),
          readWorstMs: percentile(latencies, 100),
        };
        return { run, reads };
      };

      await ask('forget');
      const first = await on(reportOnce);
      const storing = await on(() => ask<number>('idle'));
      const cached = await on(reportOnce);
      await ask('forget');
      const read = await withReader(reportOnce);
      await ask('idle');

      await ask('forget');
      await ask('queue');
      const scan = await withReader(() => ask<number>('idle'));
      const { stored, failures } = await ask<{ stored: number; failures: number }>('state');
      const storedReport = await on(reportOnce);
      if (storedReport.value !== first.value) throw new Error('the report from stored scans differs');
      if (failures > 0) throw new Error(`${failures} background steps failed`);

      const findings = JSON.parse(first.value) as Array<{ severity: string }>;
      table.round(round, rounds, reference, [
        [
          cold,
          {
            ms: first.ms,
            findings: findings.length,
            errors: findings.filter((f) => f.severity === 'error').length,
            reportMiB: first.value.length / 1024 / 1024,
            ...serverFigures(first),
          },
        ],
        ['its scans stored in the background', { ms: storing.value, ...serverFigures(storing) }],
        ['report, every scan cached in memory', { ms: cached.ms, ...serverFigures(cached) }],
        [
          'report, nothing stored or cached, one client reading',
          { ms: read.run.ms, ...read.reads, ...serverFigures(read.run) },
        ],
        [
          'background scan of the version (as after a clone or an import), one client reading',
          { ms: scan.run.value, stored, ...scan.reads, ...serverFigures(scan.run) },
        ],
        [fromStore, { ms: storedReport.ms, ...serverFigures(storedReport) }],
      ]);
    }
    const medians = table.medians();
    const judged = (name: string) => {
      const ms = medians.get(name)?.ms ?? Number.NaN;
      const verdict = pages < 10_000 ? 'not judged below 10,000 pages' : ms < 2000 ? 'met' : 'NOT met';
      return `${ms.toFixed(0)} ms, ${verdict}`;
    };
    process.stdout.write(
      `\ngoal (a report under 2 s for 10,000 pages): scans stored ${judged(fromStore)}; ` +
        `nothing stored ${judged(cold)}\n`,
    );
  } finally {
    await cleanUp();
  }
}

if (process.argv.includes('--serve')) {
  await serve(JSON.parse(process.env.BENCH_LINKS ?? '{}') as ServerSetup);
} else {
  await main();
}
