/**
 * The PostgreSQL drivers side by side, in this process, on the shapes of work Quire sends: a draft
 * update (the page's row, a revision and an audit entry in one transaction) and a point read of a
 * page. Each variant runs `--workers` loops at once over a pool of `--pool` connections for
 * `--duration` seconds, in `--rounds` rounds; the median round is reported.
 *
 *   node --import tsx bench/pg-driver.bench.ts [--pg postgres://postgres@127.0.0.1:5432/test]
 *        [--pages 1000] [--workers 20] [--pool 10] [--duration 5] [--rounds 3]
 *
 * Variants:
 * - `kysely + pg`: Quire's driver today; statements one after another, each a round trip.
 * - `kysely + postgres.js`: the same Kysely code through kysely-postgres-js.
 * - `pg, one statement`: node-pg with the three writes batched into one statement (a CTE), so one
 *   round trip and no BEGIN/COMMIT of its own.
 * - `postgres.js, pipelined`: postgres.js sending the transaction's statements without waiting for
 *   each answer (an array returned from `sql.begin`).
 *
 * Printed per variant: operations per second, p50 and p99 in µs, this process's CPU per operation
 * (the client's share: what the driver costs the server's main thread), and the ratio to `kysely + pg`.
 * Everything lives in a schema of this run's own, dropped at the end.
 */
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, type Generated } from 'kysely';
import { PostgresJSDialect } from 'kysely-postgres-js';
import pg from 'pg';
import postgres from 'postgres';
import { DEFAULT_PG_URL, median, optionalArg, withSearchPath } from './fixtures/backend.ts';
import { arg } from './fixtures/load.ts';

interface Tables {
  pages: { id: number; title: string; content_draft: string; updated: string };
  revisions: { id: Generated<number>; page_id: number; content: string; created: string };
  audit: { id: Generated<number>; action: string; page_id: number; at: string };
}

const pgUrl = optionalArg('pg', DEFAULT_PG_URL) ?? DEFAULT_PG_URL;
const pageCount = Number(arg('pages', '1000'));
const workers = Number(arg('workers', '20'));
const poolSize = Number(arg('pool', '10'));
const duration = Number(arg('duration', '5'));
const rounds = Number(arg('rounds', '3'));
const schema = `bench_driver_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const url = withSearchPath(pgUrl, schema);

/** A draft of a few KB, different each time, as a page's contents are. */
const draft = (n: number) => `# Page ${n}\n\n${'Some words of the page, changed. '.repeat(60)}${n}\n`;
const randomId = () => 1 + Math.floor(Math.random() * pageCount);

interface Variant {
  name: string;
  write: (id: number, content: string) => Promise<unknown>;
  read: (id: number) => Promise<unknown>;
}

function kyselyVariant(name: string, db: Kysely<Tables>): Variant {
  return {
    name,
    write: (id, content) =>
      db.transaction().execute(async (trx) => {
        const now = new Date().toISOString();
        await trx
          .updateTable('pages')
          .set({ content_draft: content, updated: now })
          .where('id', '=', id)
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx.insertInto('revisions').values({ page_id: id, content, created: now }).execute();
        await trx.insertInto('audit').values({ action: 'page.update', page_id: id, at: now }).execute();
      }),
    read: (id) => db.selectFrom('pages').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
  };
}

const CTE =
  'with changed as (update pages set content_draft = $2, updated = $3 where id = $1 returning id), ' +
  'revision as (insert into revisions (page_id, content, created) select id, $2, $3 from changed) ' +
  "insert into audit (action, page_id, at) select 'page.update', id, $3 from changed";

function pgOneStatement(pool: pg.Pool): Variant {
  return {
    name: 'pg, one statement (CTE)',
    write: (id, content) =>
      pool.query({ name: 'driver-bench-cte', text: CTE, values: [id, content, new Date().toISOString()] }),
    read: (id) =>
      pool.query({ name: 'driver-bench-read', text: 'select * from pages where id = $1', values: [id] }),
  };
}

function postgresPipelined(client: postgres.Sql): Variant {
  return {
    name: 'postgres.js, pipelined',
    write: (id, content) => {
      const now = new Date().toISOString();
      return client.begin((tx) => [
        tx`update pages set content_draft = ${content}, updated = ${now} where id = ${id} returning id`,
        tx`insert into revisions (page_id, content, created) values (${id}, ${content}, ${now})`,
        tx`insert into audit (action, page_id, at) values ('page.update', ${id}, ${now})`,
      ]);
    },
    read: (id) => client`select * from pages where id = ${id}`,
  };
}

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  cpuUs: number;
}

/** `workers` loops of `op` for `duration` seconds: throughput, latency and this process's CPU. */
async function run(op: () => Promise<unknown>, seconds = duration): Promise<Figures> {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  const cpu = process.cpuUsage();
  const loop = async () => {
    while (performance.now() < until) {
      const began = performance.now();
      await op();
      latencies.push((performance.now() - began) * 1000);
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: workers }, loop));
  const elapsed = (performance.now() - began) / 1000;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    perSecond: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    cpuUs: (used.user + used.system) / Math.max(1, latencies.length),
  };
}

async function setUp(): Promise<void> {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
    await admin.query(`set search_path = ${schema}`);
    await admin.query(
      'create table pages (id integer primary key, title text not null, content_draft text not null, updated text not null)',
    );
    await admin.query(
      'create table revisions (id serial primary key, page_id integer not null references pages (id), content text not null, created text not null)',
    );
    await admin.query(
      'create table audit (id serial primary key, action text not null, page_id integer not null, at text not null)',
    );
    await admin.query(
      "insert into pages select n, 'Page ' || n, repeat('words ', 500), now()::text from generate_series(1, $1) as n",
      [pageCount],
    );
  } finally {
    await admin.end();
  }
}

async function dropSchema(): Promise<void> {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`drop schema if exists ${schema} cascade`).finally(() => admin.end());
}

function summary(name: string, all: Figures[]): Figures {
  const by = (pick: (f: Figures) => number) => median(all.map(pick));
  const figures = {
    perSecond: by((f) => f.perSecond),
    p50: by((f) => f.p50),
    p99: by((f) => f.p99),
    cpuUs: by((f) => f.cpuUs),
  };
  process.stdout.write(
    `${name.padEnd(40)} ${Math.round(figures.perSecond).toString().padStart(6)}/s  p50 ${Math.round(figures.p50)} µs  ` +
      `p99 ${Math.round(figures.p99)} µs  client CPU ${Math.round(figures.cpuUs)} µs/op\n`,
  );
  return figures;
}

async function main(): Promise<void> {
  await setUp();
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  const js = postgres(url, { max: poolSize, prepare: true, onnotice: () => undefined });
  const variants: Variant[] = [
    kyselyVariant('kysely + pg', new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) })),
    kyselyVariant(
      'kysely + postgres.js',
      new Kysely<Tables>({ dialect: new PostgresJSDialect({ postgres: js }) }),
    ),
    pgOneStatement(pool),
    postgresPipelined(js),
  ];
  try {
    process.stdout.write(
      `PostgreSQL drivers: ${pageCount} pages, ${workers} workers, pool ${poolSize}, ${duration} s × ${rounds} rounds\n`,
    );
    for (const kind of ['write', 'read'] as const) {
      const results = new Map<string, Figures[]>(variants.map((v) => [v.name, []]));
      for (let round = 1; round <= rounds; round++) {
        // The order moves each round, so that no variant always runs first (or on a cooler cache).
        for (let i = 0; i < variants.length; i++) {
          const variant = variants[(i + round - 1) % variants.length]!;
          let n = 0;
          const op =
            kind === 'write' ? () => variant.write(randomId(), draft(n++)) : () => variant.read(randomId());
          await run(op, 1); // unmeasured: connections opened, statements prepared
          results.get(variant.name)!.push(await run(op));
        }
      }
      process.stdout.write(
        `\n${kind === 'write' ? 'draft update (row, revision, audit entry)' : 'point read of a page'}, median of rounds:\n`,
      );
      const base = summary(variants[0]!.name, results.get(variants[0]!.name)!);
      for (const variant of variants.slice(1)) {
        const f = summary(variant.name, results.get(variant.name)!);
        process.stdout.write(`${''.padEnd(40)} ${(f.perSecond / base.perSecond).toFixed(2)}× kysely + pg\n`);
      }
    }
  } finally {
    await pool.end();
    await js.end();
    await dropSchema();
  }
}

await main();
