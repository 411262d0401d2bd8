/**
 * Write throughput of pages against a listening server, next to a plain Fastify route that returns a
 * fixed JSON object, measured in the same run on the same machine. The Quire server and the plain
 * server each run in a child process; autocannon runs here. Rate limits are scaled out of the way.
 *
 *   node --import tsx bench/writes.bench.ts [--pages 1000] [--duration 10] [--connections 20] [--rounds 1]
 *        [--database-url postgres://postgres@127.0.0.1:5432/quire_bench_writes] [--redis-url redis://…]
 *        [--data $TMPDIR/quire-bench-writes] [--port 18760] [--fixed-port 18761]
 *
 * Runs: (a) `POST /documentation/{id}/page` into the first section, each with a new title; (b)
 * `PUT /page/{id}` of a random page's draft; (c) that update followed by `PUT /page/{id}/publish` of
 * the same page, alternately. Every run starts from the same data: on SQLite a copy of the seeded
 * file, on PostgreSQL a database seeded anew (its name is the URL's, which is dropped first).
 *
 * Per run: writes/s, the ratio to the fixed route, p50/p99, the server's CPU time per write (from
 * /proc), and the statements per write issued through Kysely (from GET /metrics; begin and commit
 * are not counted there). The median round by writes/s is reported.
 *
 * Goals: SQLite ≥ 0.1 of the fixed route, PostgreSQL ≥ 0.03, the same at 1,000 and 100,000 pages.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import pg from 'pg';
import { openDatabase } from '../src/db/dialect.ts';
import { seededDatabase, seedPages, type SeedResult } from './seed-pages.ts';
import { arg, autocannon, startChild, type Result } from './fixtures/load.ts';
import { waitFor } from './fixtures/wait.ts';

const HERE = fileURLToPath(import.meta.url);
const FIXED = { id: 1, title: 'Fixed', slug: 'fixed', listed: true, path: 'v1/guides/fixed' };
const CLOCK_TICKS = 100;

/** A request of autocannon's, with the per-connection context it hands to setupRequest. */
interface WriteRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}
type Setup = (req: WriteRequest, context: Record<string, unknown>) => WriteRequest;
interface WriteOptions {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  requests?: Array<{ setupRequest: Setup }>;
}
const cannon = autocannon as unknown as (options: WriteOptions) => Promise<Result>;

async function fixedServer(port: number): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/fixed', () => FIXED);
  await app.listen({ host: '127.0.0.1', port });
}

/** The child's user + system CPU time in milliseconds, from /proc (Linux). */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** Statements issued through Kysely so far, from the metrics endpoint. */
async function statements(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('quire_db_query_duration_seconds_count')) total += Number(line.split(' ').pop());
  }
  return total;
}

/** A fresh copy of the seeded SQLite file (the runs write to it). */
async function sqliteData(dir: string, pages: number): Promise<SeedResult & { databaseUrl: string }> {
  const seed = await seededDatabase(dir, pages);
  const source = seed.databaseUrl.slice('sqlite:'.length);
  const work = path.join(dir, `writes-${pages}.db`);
  for (const stale of [work, `${work}-wal`, `${work}-shm`, `${work}.webhook-key`]) {
    fs.rmSync(stale, { force: true });
  }
  fs.copyFileSync(source, work);
  return { ...seed, databaseUrl: `sqlite:${work}` };
}

/** The database of the URL dropped, created and seeded anew. */
async function postgresData(url: string, pages: number): Promise<SeedResult & { databaseUrl: string }> {
  const target = new URL(url);
  const name = target.pathname.slice(1);
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`database name '${name}' is not plain`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`);
    await client.query(`create database ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  return { ...(await seedPages(url, pages)), databaseUrl: url };
}

async function firstSection(databaseUrl: string, pageId: number): Promise<number> {
  const handle = openDatabase(databaseUrl);
  try {
    const row = await handle.db
      .selectFrom('pages')
      .select('documentation_id')
      .where('id', '=', pageId)
      .executeTakeFirstOrThrow();
    return row.documentation_id;
  } finally {
    await handle.close();
  }
}

interface Measured {
  result: Result;
  cpuPerWrite: number;
  statementsPerWrite: number;
}

async function main(): Promise<void> {
  const pages = Number(arg('pages', '1000'));
  const duration = Number(arg('duration', '10'));
  const rounds = Math.max(1, Number(arg('rounds', '1')));
  const connections = Number(arg('connections', '20'));
  const quirePort = Number(arg('port', '18760'));
  const fixedPort = Number(arg('fixed-port', '18761'));
  const databaseUrl = arg('database-url', '');
  const redisUrl = arg('redis-url', '');
  const dir = arg('data', path.join(os.tmpdir(), 'quire-bench-writes'));

  const started = Date.now();
  const seed = databaseUrl.startsWith('postgres')
    ? await postgresData(databaseUrl, pages)
    : await sqliteData(dir, pages);
  const section = await firstSection(seed.databaseUrl, seed.pageIds[0] ?? 1);
  process.stdout.write(
    `data: ${seed.pageIds.length} pages (${seed.databaseUrl}), ready in ${Date.now() - started} ms\n`,
  );

  const server = startChild(['src/main.ts'], {
    DATABASE_URL: seed.databaseUrl,
    ...(redisUrl !== '' ? { REDIS_URL: redisUrl } : {}),
    HOST: '127.0.0.1',
    PORT: String(quirePort),
    RATE_LIMIT_SCALE: '1000000',
    QUIRE_BOOTSTRAP: 'false',
    LOG_LEVEL: 'warn',
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  });
  const children = [server, startChild([HERE, '--fixed-server', String(fixedPort)], {})];
  try {
    const quire = `http://127.0.0.1:${quirePort}`;
    const fixed = `http://127.0.0.1:${fixedPort}`;
    // A server started on a busy machine may take a while (tsx compiles it first).
    await Promise.all([waitFor(`${quire}/readyz`, 120_000), waitFor(`${fixed}/fixed`, 120_000)]);
    const pid = server.pid;
    if (pid === undefined) throw new Error('the server has no pid');

    const ids = seed.pageIds;
    const randomId = () => ids[Math.floor(Math.random() * ids.length)] ?? 1;
    const json = { 'content-type': 'application/json', 'x-api-key': seed.key };
    let serial = 0;
    const draft = (n: number) =>
      `# Draft ${n}\n\nA paragraph of **changed** text, with a [link](https://example.com/${n}).\n\n- one\n- two\n`;
    const create: Setup = (req) => {
      const n = ++serial;
      return {
        ...req,
        method: 'POST',
        path: `/api/v1/documentation/${section}/page`,
        body: JSON.stringify({ title: `Written page ${started}-${n}`, content: draft(n) }),
      };
    };
    const update: Setup = (req, context) => {
      const id = randomId();
      context.id = id;
      return {
        ...req,
        method: 'PUT',
        path: `/api/v1/page/${id}`,
        body: JSON.stringify({ content: draft(++serial) }),
      };
    };
    const publish: Setup = (req, context) => ({
      ...req,
      method: 'PUT',
      path: `/api/v1/page/${typeof context.id === 'number' ? context.id : randomId()}/publish`,
      body: undefined,
      headers: { 'x-api-key': seed.key },
    });
    const write = (...setups: Setup[]): WriteOptions => ({
      url: quire,
      connections,
      duration,
      headers: json,
      requests: setups.map((setupRequest) => ({ setupRequest })),
    });
    const runs: Array<[string, WriteOptions]> = [
      ['fixed JSON route (plain Fastify)', { url: `${fixed}/fixed`, connections, duration }],
      ['(a) POST /documentation/{id}/page', write(create)],
      ['(b) PUT /page/{id} (draft)', write(update)],
      ['(c) PUT /page/{id}, then its PUT /page/{id}/publish', write(update, publish)],
    ];
    const measure = async (name: string, options: WriteOptions): Promise<Measured> => {
      const quireRun = name !== runs[0]?.[0];
      const cpuBefore = cpuMs(pid);
      const statementsBefore = quireRun ? await statements(quire) : 0;
      const result = await cannon(options);
      const writes = Math.max(1, result.requests.total);
      return {
        result,
        cpuPerWrite: (cpuMs(pid) - cpuBefore) / writes,
        statementsPerWrite: quireRun ? ((await statements(quire)) - statementsBefore) / writes : 0,
      };
    };
    // Rounds interleave the runs, so that a burst of load from elsewhere on the machine does not fall on
    // one run only; each run reports its median round (by writes per second).
    const results = runs.map(() => [] as Measured[]);
    for (let round = 0; round < rounds; round++) {
      for (const [i, [name, options]] of runs.entries()) {
        // A short unmeasured run first: JIT warm-up and connection set-up stay out of the figures.
        await cannon({ ...options, duration: 2 });
        const measured = await measure(name, options);
        results[i]?.push(measured);
        const { result } = measured;
        process.stdout.write(
          `round ${round + 1} ${name}: ${Math.round(result.requests.average)}/s p50 ${result.latency.p50} ` +
            `p99 ${result.latency.p99} cpu ${measured.cpuPerWrite.toFixed(3)} ms ` +
            `statements ${measured.statementsPerWrite.toFixed(2)} non-2xx ${result.non2xx}\n`,
        );
      }
    }
    const rows = runs.map(([name], i) => {
      const sorted = [...(results[i] ?? [])].sort(
        (a, b) => a.result.requests.average - b.result.requests.average,
      );
      const measured = sorted[Math.floor(sorted.length / 2)];
      if (!measured) throw new Error(`no result for ${name}`);
      return { name, measured };
    });
    const baseline = rows[0]?.measured.result.requests.average ?? 1;
    const database = databaseUrl.startsWith('postgres') ? 'PostgreSQL' : 'SQLite';
    process.stdout.write(
      `\n${database}, ${connections} connections, ${duration} s each, median of ${rounds} round(s), ${pages} pages\n\n` +
        '| run | writes/s | vs fixed | p50 ms | p99 ms | server CPU ms/write | statements/write | non-2xx | errors |\n' +
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n',
    );
    for (const [i, { name, measured }] of rows.entries()) {
      const { result } = measured;
      const ratio = result.requests.average / baseline;
      const cpu = i === 0 ? '' : measured.cpuPerWrite.toFixed(3);
      const count = i === 0 ? '' : measured.statementsPerWrite.toFixed(2);
      process.stdout.write(
        `| ${name} | ${Math.round(result.requests.average)} | ${ratio.toFixed(3)} | ${result.latency.p50} | ` +
          `${result.latency.p99} | ${cpu} | ${count} | ${result.non2xx} | ${result.errors + result.timeouts} |\n`,
      );
    }
    const goal = database === 'PostgreSQL' ? 0.03 : 0.1;
    const worst = Math.min(...rows.slice(1).map((row) => row.measured.result.requests.average));
    process.stdout.write(
      `\ngoal (every write run >= ${goal} of fixed): ${worst / baseline >= goal ? 'met' : 'NOT met'} ` +
        `(lowest ${(worst / baseline).toFixed(3)})\n`,
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}

if (process.argv.includes('--fixed-server')) {
  await fixedServer(Number(arg('fixed-server', '18761')));
} else {
  await main();
}
