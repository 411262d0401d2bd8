/**
 * Write throughput of pages against a listening server, next to a plain Fastify route that returns a
 * fixed JSON object, measured in the same run on the same machine. The Quire server and the plain
 * server each run in a child process; autocannon runs here. Rate limits are scaled out of the way.
 *
 *   node --import tsx bench/writes.bench.ts [--pages 1000] [--duration 10] [--connections 20] [--rounds 1]
 *        [--database-url postgres://postgres@127.0.0.1:5432/quire_bench_writes] [--redis-url redis://…]
 *        [--data $TMPDIR/quire-bench-writes] [--port P] [--fixed-port P] [--render-ahead true|false]
 *        [--json FILE]
 *
 * Ports not given are chosen by the system. Runs: the fixed route; the bare draft update of the plain
 * server (the least such a write can do, see fixedServer); (a) `POST /documentation/{id}/page` into
 * the first section, each with a new title; (b)
 * `PUT /page/{id}` of a random page's draft; (c) that update followed by `PUT /page/{id}/publish` of
 * the same page, alternately. Every run starts from the same data: on SQLite a copy of the seeded
 * file, on PostgreSQL a database seeded anew (its name is the URL's, which is dropped first).
 *
 * Before each run both servers are left to finish what the previous run started (link scans and
 * renders of what it wrote): the bench waits until neither uses more than 5% of a core.
 *
 * Per run: writes/s, the ratio to the fixed route, p50/p99, the answering server's CPU time per write
 * (from /proc), and the statements per write issued through Kysely (from GET /metrics; begin and commit
 * are not counted there). The median round by writes/s is reported.
 *
 * `--render-ahead` sets the server's RENDER_AHEAD (default true, as Quire's): with false, what a write
 * costs without the render of its page that follows it in a worker thread.
 *
 * `--json FILE` writes each run's median round there (fixed, bare, create, update, publish), for
 * bench/table.ts.
 *
 * Goals: SQLite ≥ 0.1 of the fixed route, PostgreSQL ≥ 0.03, the same at 1,000 and 100,000 pages.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { openDatabase } from '../src/db/dialect.ts';
import { seededDatabase, seedPages, type SeedResult } from './seed-pages.ts';
import { portArg } from './fixtures/backend.ts';
import { arg, autocannon, startChild, type Result } from './fixtures/load.ts';
import type { RowFigures } from './fixtures/rounds.ts';
import { waitFor } from './fixtures/wait.ts';

const HERE = fileURLToPath(import.meta.url);
const FIXED = { id: 1, title: 'Fixed', slug: 'fixed', listed: true, path: 'v1/guides/fixed' };
const BARE_COLUMNS = 'id, listed, title, created, updated, slug, content_draft, content_published';
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

/**
 * The reference points: the cheapest useful Fastify route there is, and the least a draft update can
 * write (`PUT /bare/{id}`, no key, no schema, no idempotency, no events): the page's row, its
 * revision and an audit entry, in one transaction of prepared statements on SQLite, in one statement
 * on PostgreSQL; the change-stamp triggers fire as they do for Quire. Its ratio to the fixed route is
 * the most any write through Quire could reach on this machine.
 */
async function fixedServer(port: number, bare: string): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/fixed', () => FIXED);
  type Bare = { Params: { id: string }; Body: { content?: unknown } };
  const content = (body: { content?: unknown } | undefined): string =>
    typeof body?.content === 'string' ? body.content : '';
  if (bare.startsWith('sqlite:')) {
    const sqlite = new SQLite(bare.slice('sqlite:'.length));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    const update = sqlite.prepare<[string, string, number], Record<string, unknown>>(
      `update pages set content_draft = ?, updated = ? where id = ? returning ${BARE_COLUMNS}`,
    );
    const revision = sqlite.prepare(
      `insert into page_history (page_id, operation, message, title, slug, content_draft, content_published,
         api_key_id, user_id, created) values (?, 'update', '', ?, ?, ?, ?, null, null, ?)`,
    );
    const audit = sqlite.prepare(
      `insert into audit_log (project_id, timestamp, scope, entity, entity_id, operation, message, details,
         ip_address, user_label, api_key_label) values (1, ?, 'content', 'page', ?, 'UPD', 'Page updated', '{}',
         '127.0.0.1', null, 'bench')`,
    );
    const write = sqlite.transaction((id: number, text: string) => {
      const now = new Date().toISOString();
      const row = update.get(text, now, id);
      if (row === undefined) return {};
      revision.run(id, row.title, row.slug, text, row.content_published, now);
      audit.run(now, String(id));
      return row;
    });
    app.put<Bare>('/bare/:id', (request) => write(Number(request.params.id), content(request.body)));
  } else {
    const pool = new pg.Pool({ connectionString: bare, max: 10 });
    const text = `with p as (update pages set content_draft = $2, updated = $3 where id = $1 returning ${BARE_COLUMNS}),
      h as (insert into page_history (page_id, operation, message, title, slug, content_draft, content_published,
        api_key_id, user_id, created) select id, 'update', '', title, slug, content_draft, content_published,
        null, null, $3 from p),
      a as (insert into audit_log (project_id, timestamp, scope, entity, entity_id, operation, message, details,
        ip_address, user_label, api_key_label) select 1, $3, 'content', 'page', id::text, 'UPD', 'Page updated',
        '{}', '127.0.0.1', null, 'bench' from p)
      select * from p`;
    app.put<Bare>('/bare/:id', async (request) => {
      const values = [Number(request.params.id), content(request.body), new Date().toISOString()];
      const { rows } = await pool.query({ name: 'bare-write', text, values });
      return (rows[0] as Record<string, unknown> | undefined) ?? {};
    });
  }
  await app.listen({ host: '127.0.0.1', port });
}

/** The child's user + system CPU time in milliseconds, from /proc (Linux). */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/**
 * Waits until a server is quiet: less than 5% of a core over 250 ms, for at most 30 s. Work a run
 * leaves behind (link scans and renders of what it wrote, checkpoints) would otherwise run during the
 * next run, whichever server that measures. Returns the milliseconds waited.
 */
async function settled(...pids: number[]): Promise<number> {
  const started = Date.now();
  for (;;) {
    const before = pids.map(cpuMs);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const busiest = Math.max(...pids.map((pid, i) => cpuMs(pid) - (before[i] ?? 0)));
    if (busiest < 12.5 || Date.now() - started > 30_000) return Date.now() - started;
  }
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
  const [quirePort, fixedPort] = [await portArg('port'), await portArg('fixed-port')];
  const databaseUrl = arg('database-url', '');
  const redisUrl = arg('redis-url', '');
  const dir = arg('data', path.join(os.tmpdir(), 'quire-bench-writes'));
  const renderAhead = arg('render-ahead', 'true');
  if (renderAhead !== 'true' && renderAhead !== 'false') throw new Error('--render-ahead is true or false');

  const started = Date.now();
  const seed = databaseUrl.startsWith('postgres')
    ? await postgresData(databaseUrl, pages)
    : await sqliteData(dir, pages);
  const section = await firstSection(seed.databaseUrl, seed.pageIds[0] ?? 1);
  process.stdout.write(
    `data: ${seed.pageIds.length} pages (${seed.databaseUrl}), ready in ${Date.now() - started} ms; RENDER_AHEAD=${renderAhead}\n`,
  );

  const server = startChild(['src/main.ts'], {
    DATABASE_URL: seed.databaseUrl,
    ...(redisUrl !== '' ? { REDIS_URL: redisUrl } : {}),
    HOST: '127.0.0.1',
    PORT: String(quirePort),
    RATE_LIMIT_SCALE: '1000000',
    QUIRE_BOOTSTRAP: 'false',
    LOG_LEVEL: 'warn',
    RENDER_AHEAD: renderAhead,
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  });
  const fixedChild = startChild([HERE, '--fixed-server', String(fixedPort), '--bare', seed.databaseUrl], {});
  const children = [server, fixedChild];
  try {
    const quire = `http://127.0.0.1:${quirePort}`;
    const fixed = `http://127.0.0.1:${fixedPort}`;
    // A server started on a busy machine may take a while (tsx compiles it first).
    await Promise.all([waitFor(`${quire}/readyz`, 120_000), waitFor(`${fixed}/fixed`, 120_000)]);
    const pid = server.pid;
    const fixedPid = fixedChild.pid;
    if (pid === undefined || fixedPid === undefined) throw new Error('a server has no pid');

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
    const bareUpdate: Setup = (req) => ({
      ...req,
      method: 'PUT',
      path: `/bare/${randomId()}`,
      body: JSON.stringify({ content: draft(++serial) }),
    });
    const runs: Array<[string, WriteOptions]> = [
      ['fixed JSON route (plain Fastify)', { url: `${fixed}/fixed`, connections, duration }],
      [
        'bare draft update: row, revision, audit entry (plain Fastify)',
        { url: fixed, connections, duration, headers: json, requests: [{ setupRequest: bareUpdate }] },
      ],
      ['(a) POST /documentation/{id}/page', write(create)],
      ['(b) PUT /page/{id} (draft)', write(update)],
      ['(c) PUT /page/{id}, then its PUT /page/{id}/publish', write(update, publish)],
    ];
    // The first two runs are the plain server's: its CPU is measured for them, Quire's for the rest.
    const plainRuns = 2;
    const measure = async (i: number, options: WriteOptions): Promise<Measured> => {
      const quireRun = i >= plainRuns;
      const measuredPid = quireRun ? pid : fixedPid;
      const cpuBefore = cpuMs(measuredPid);
      const statementsBefore = quireRun ? await statements(quire) : 0;
      const result = await cannon(options);
      const writes = Math.max(1, result.requests.total);
      return {
        result,
        cpuPerWrite: (cpuMs(measuredPid) - cpuBefore) / writes,
        statementsPerWrite: quireRun ? ((await statements(quire)) - statementsBefore) / writes : 0,
      };
    };
    // Rounds interleave the runs, so that a burst of load from elsewhere on the machine does not fall on
    // one run only; each run reports its median round (by writes per second).
    const results = runs.map(() => [] as Measured[]);
    for (let round = 0; round < rounds; round++) {
      for (const [i, [name, options]] of runs.entries()) {
        const waited = await settled(pid, fixedPid);
        // A short unmeasured run first: JIT warm-up and connection set-up stay out of the figures.
        await cannon({ ...options, duration: 2 });
        const measured = await measure(i, options);
        results[i]?.push(measured);
        const { result } = measured;
        process.stdout.write(
          `round ${round + 1} ${name}: ${Math.round(result.requests.average)}/s p50 ${result.latency.p50} ` +
            `p99 ${result.latency.p99} cpu ${measured.cpuPerWrite.toFixed(3)} ms ` +
            `statements ${measured.statementsPerWrite.toFixed(2)} non-2xx ${result.non2xx} ` +
            `(servers quiet after ${waited} ms)\n`,
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
      const count = i < plainRuns ? '' : measured.statementsPerWrite.toFixed(2);
      process.stdout.write(
        `| ${name} | ${Math.round(result.requests.average)} | ${ratio.toFixed(3)} | ${result.latency.p50} | ` +
          `${result.latency.p99} | ${cpu} | ${count} | ${result.non2xx} | ${result.errors + result.timeouts} |\n`,
      );
    }
    const jsonFile = arg('json', '');
    if (jsonFile !== '') {
      const names = ['fixed', 'bare', 'create', 'update', 'publish'];
      const figures = Object.fromEntries(
        rows.map(({ measured }, i) => [
          names[i] ?? `run ${i}`,
          {
            perSecond: measured.result.requests.average,
            p50: measured.result.latency.p50,
            p99: measured.result.latency.p99,
            cpuUs: measured.cpuPerWrite * 1000,
            databaseCpuUs: null,
          } satisfies RowFigures,
        ]),
      );
      fs.writeFileSync(
        jsonFile,
        `${JSON.stringify({ title: `writes ${database}, ${pages} pages`, rows: figures }, null, 2)}\n`,
      );
    }
    const goal = database === 'PostgreSQL' ? 0.03 : 0.1;
    const worst = Math.min(...rows.slice(plainRuns).map((row) => row.measured.result.requests.average));
    const bare = rows[1]?.measured.result.requests.average ?? 1;
    const draftUpdate = rows[plainRuns + 1]?.measured.result.requests.average ?? 0;
    process.stdout.write(
      `\nthe bare draft update reaches ${(bare / baseline).toFixed(3)} of fixed; Quire's draft update ` +
        `${(draftUpdate / bare).toFixed(2)} of the bare one\n` +
        `goal (every write run >= ${goal} of fixed): ${worst / baseline >= goal ? 'met' : 'NOT met'} ` +
        `(lowest ${(worst / baseline).toFixed(3)})\n`,
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}

if (process.argv.includes('--fixed-server')) {
  await fixedServer(Number(arg('fixed-server', '0')), arg('bare', ''));
} else {
  await main();
}
