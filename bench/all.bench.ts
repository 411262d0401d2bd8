/**
 * GET /all on a big project, over real HTTP: seeds a project (10,000 pages by default, spread over 4
 * versions of 10 sections, plus 2% deleted pages and a few references), starts the app in a child
 * process on 127.0.0.1, and times sequential requests after a warm-up.
 *
 *   node --import tsx bench/all.bench.ts [--pages 10000] [--rounds 20] [--warmup 3] [--port 18700]
 *        [--database-url postgres://postgres@127.0.0.1:5432/test [--schema NAME]] [--file PATH]
 *
 * With `--database-url` the data goes to a PostgreSQL schema of its own, dropped afterwards; without
 * it, to a SQLite file in a temporary folder. `--schema` (PostgreSQL) or `--file` (SQLite) names
 * where the data goes instead and keeps it: a later run naming the same place and number of pages
 * reuses it (with a new key) instead of seeding again, so that runs of two builds of the server
 * compare on the same rows. For each query it prints every round's time, the median
 * and p95 in ms, the answer's size, and then the same for conditional requests carrying the answer's
 * ETag (which must answer 304). The server runs in its own process so that its resident set size is
 * its own: printed after each query (current and peak), with the server's CPU time per request, which
 * varies less than the wall times when other work shares the machine; on PostgreSQL running on this
 * machine, the CPU time of the server's database sessions per request too (read from /proc).
 *
 * Goal (issue 16, item 6): under 300 ms for 100,000 pages. Exits 1 when a p95 reaches it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { arg } from './fixtures/load.ts';
import { reuseAllProject, seedAllProject } from './seed-all.ts';

const BUDGET_MS = 300;

interface ServerMemory {
  rssMiB: number;
  peakRssMiB: number;
  /** CPU time the server process has used so far (user + system, all its threads), in ms */
  cpuMs: number;
}

type ToServer = { type: 'memory' } | { type: 'stop' };
type FromServer = { type: 'ready' } | ({ type: 'memory' } & ServerMemory);

const configFor = (databaseUrl: string) =>
  loadConfig({
    DATABASE_URL: databaseUrl,
    QUIRE_BOOTSTRAP: 'false',
    LOG_LEVEL: 'silent',
    // The benchmark makes more requests than the operation's 30 an hour.
    RATE_LIMIT_SCALE: '100000',
  });

const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** The child: serves the seeded database on the port until told to stop. */
async function serve(databaseUrl: string, port: number, schema: string | undefined): Promise<void> {
  const deps = createDeps(configFor(databaseUrl), schema !== undefined ? { schema } : {});
  const app = await buildApp(deps, { logger: false });
  await app.listen({ host: '127.0.0.1', port });
  const send = (message: FromServer) => process.send?.(message);
  process.on('message', (message: ToServer) => {
    if (message.type === 'memory') {
      send({
        type: 'memory',
        rssMiB: mib(process.memoryUsage().rss),
        // maxRSS is in KiB.
        peakRssMiB: mib(process.resourceUsage().maxRSS * 1024),
        cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
      });
    } else {
      void app
        .close()
        .then(() => deps.close())
        .then(() => process.exit(0));
    }
  });
  send({ type: 'ready' });
}

function percentile(sortedMs: number[], p: number): number {
  const index = Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1);
  return sortedMs[Math.max(0, index)] ?? Number.NaN;
}

const round1 = (ms: number) => Math.round(ms * 10) / 10;

/** The next message of the child of the given type. */
function next<T extends FromServer['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<FromServer, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromServer) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as Extract<FromServer, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`the server exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * CPU time (ms) the database sessions named `application` have used so far, summed: null unless
 * PostgreSQL runs on this machine, where each session is a process whose schedstat can be read.
 */
async function databaseCpuMs(
  deps: ReturnType<typeof createDeps>,
  application: string,
): Promise<number | null> {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity where application_name = ${application}`.execute(deps.database.db);
  let ns = 0;
  for (const { pid } of rows) {
    try {
      // A process of that id here that is no PostgreSQL backend: the server runs elsewhere.
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('postgres')) return null;
      ns += Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      return null;
    }
  }
  return ns / 1e6;
}

async function main(): Promise<void> {
  const pages = Number(arg('pages', '10000'));
  const rounds = Math.max(1, Number(arg('rounds', '20')));
  const warmup = Math.max(0, Number(arg('warmup', '3')));
  const port = Number(arg('port', '18700'));
  const postgres = arg('database-url', '');
  if (!Number.isInteger(pages) || pages < 1) throw new Error('--pages must be a positive integer');

  const keptSchema = arg('schema', '');
  const keptFile = arg('file', '');
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-all-'));
  const databaseUrl = postgres || `sqlite:${keptFile || path.join(tmpDir, 'quire.db')}`;
  const schema = postgres ? keptSchema || `bench_all_${randomBytes(4).toString('hex')}` : undefined;
  const keep = postgres ? keptSchema !== '' : keptFile !== '';
  const deps = createDeps(configFor(databaseUrl), schema !== undefined ? { schema } : {});
  let child: ChildProcess | null = null;
  try {
    await upgradeDatabase(deps.database, schema);
    const seedStart = performance.now();
    const reused = keep ? await reuseAllProject(deps, pages) : null;
    const seeded =
      reused ??
      (await seedAllProject(deps, {
        pages,
        versions: 4,
        sectionsPerVersion: 10,
        referencesPerVersion: 5,
      }));
    const seedMs = performance.now() - seedStart;
    if (deps.database.dialect === 'postgres' && reused === null) await sql`analyze`.execute(deps.database.db);

    const server = fork(
      fileURLToPath(import.meta.url),
      ['--serve', databaseUrl, String(port), schema ?? ''],
      {
        execArgv: process.execArgv,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    child = server;
    await next(server, 'ready');
    const memory = async () => {
      server.send({ type: 'memory' } satisfies ToServer);
      return next(server, 'memory');
    };

    process.stdout.write(
      `GET /all on ${deps.database.dialect}: ${seeded.pages} pages ${reused ? 'reused' : 'seeded'} in ${round1(seedMs / 1000)} s; ` +
        `${rounds} sequential requests after ${warmup} warm-up, budget ${BUDGET_MS} ms\n`,
    );
    const base = `http://127.0.0.1:${port}/api/v1/all`;
    const over: string[] = [];
    const startMemory = await memory();
    process.stdout.write(`server RSS before the first request: ${startMemory.rssMiB} MiB\n`);

    for (const query of ['', '?published=true', '?versionId=latest']) {
      const label = query || '(none)';
      const time = async (headers: Record<string, string>, expected: number) => {
        const cpuBefore = (await memory()).cpuMs;
        const dbCpuBefore = schema !== undefined ? await databaseCpuMs(deps, `quire ${schema}`) : null;
        let bytes = 0;
        let etag = '';
        const samples: number[] = [];
        for (let i = 0; i < warmup + rounds; i++) {
          const start = performance.now();
          const res = await fetch(`${base}${query}`, { headers: { 'x-api-key': seeded.key, ...headers } });
          const body = Buffer.from(await res.arrayBuffer());
          const elapsed = performance.now() - start;
          if (res.status !== expected) {
            throw new Error(`GET /all${query} answered ${res.status}: ${body.toString().slice(0, 200)}`);
          }
          bytes = body.length;
          etag = res.headers.get('etag') ?? '';
          if (i >= warmup) samples.push(elapsed);
        }
        const cpuPerRequest = ((await memory()).cpuMs - cpuBefore) / (warmup + rounds);
        const dbCpuAfter = schema !== undefined ? await databaseCpuMs(deps, `quire ${schema}`) : null;
        const dbCpuPerRequest =
          dbCpuBefore !== null && dbCpuAfter !== null ? (dbCpuAfter - dbCpuBefore) / (warmup + rounds) : null;
        const sorted = [...samples].sort((a, b) => a - b);
        return {
          samples,
          median: percentile(sorted, 50),
          p95: percentile(sorted, 95),
          bytes,
          etag,
          cpuPerRequest,
          dbCpuPerRequest,
        };
      };
      const print = (kind: string, r: Awaited<ReturnType<typeof time>>) => {
        process.stdout.write(
          `  ${kind.padEnd(4)} rounds_ms ${r.samples.map((ms) => round1(ms)).join(' ')}\n` +
            `  ${kind.padEnd(4)} median_ms ${round1(r.median)}  p95_ms ${round1(r.p95)}  ` +
            `server_cpu_ms/request ${round1(r.cpuPerRequest)}  ` +
            (r.dbCpuPerRequest !== null ? `db_cpu_ms/request ${round1(r.dbCpuPerRequest)}  ` : '') +
            `body ${r.bytes} bytes (${round1(r.bytes / 1024 / 1024)} MiB)\n`,
        );
      };

      const full = await time({}, 200);
      const first = await fetch(`${base}${query}`, { headers: { 'x-api-key': seeded.key } });
      const answer = (await first.json()) as { page: Record<string, unknown> };
      process.stdout.write(`query ${label}: ${Object.keys(answer.page).length} pages in the answer\n`);
      print('200', full);
      if (full.etag === '') throw new Error(`GET /all${query} answered without an ETag`);
      const conditional = await time({ 'if-none-match': full.etag }, 304);
      print('304', conditional);
      const mem = await memory();
      process.stdout.write(`  server RSS ${mem.rssMiB} MiB, peak ${mem.peakRssMiB} MiB\n`);
      if (full.p95 >= BUDGET_MS) over.push(label);
    }
    if (over.length > 0) {
      process.stdout.write(`OVER BUDGET: ${over.join(', ')}\n`);
      process.exitCode = 1;
    }
  } finally {
    if (child !== null && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.send({ type: 'stop' } satisfies ToServer);
      await exited;
    }
    if (schema !== undefined && !keep) {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(deps.database.db);
    }
    await deps.close();
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
}

const serveAt = process.argv.indexOf('--serve');
const run =
  serveAt >= 0
    ? serve(
        process.argv[serveAt + 1] ?? '',
        Number(process.argv[serveAt + 2]),
        process.argv[serveAt + 3] || undefined,
      )
    : main();
run.catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
