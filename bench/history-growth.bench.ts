/**
 * What a page's history costs in storage (decision 0038): a page of about 20 KB is edited 1,000 times
 * through `PUT /page/{id}`, each edit replacing one line of its draft, against a Quire server in a
 * child process on a fresh SQLite file (or PostgreSQL with `--pg [url]` / `--database-url url`, in a
 * schema of its own). Before and after, the bench weighs the database: on SQLite every table and
 * index through `dbstat` (pages in use, the file's free pages not counted), on PostgreSQL
 * `pg_total_relation_size` of every table of the schema (indexes and TOAST included). It prints the
 * growth of `page_history` (with its index) and of the whole database as multiples of the page's
 * size, and the tables that grew most. Every revision is then read back through the history API and
 * compared with what was written.
 *
 *   node --import tsx bench/history-growth.bench.ts [--edits 1000] [--page-kb 20] [--port P]
 *        [--fixed-port P] [--data $TMPDIR/quire-bench-history] [--pg [url]] [--render-ahead true|false]
 *        [--json FILE]
 *
 * `--json FILE` writes the two multiples there (history, whole database), for bench/table.ts.
 * Goal: the history of the 1,000 edits weighs at most 10 times the page.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/dialect.ts';
import { backendFromArgs, portArg, prepareSchema, serverRun, withSearchPath } from './fixtures/backend.ts';
import { arg, random } from './fixtures/load.ts';
import { startQuire } from './fixtures/quire-server.ts';

const KEY = `qk_${'h'.repeat(40)}`;
const WORDS = (
  'api key request response token version section page publish draft content deploy service client ' +
  'server cache index search query header limit window field value schema error retry timeout webhook'
).split(' ');

type Sizes = Map<string, number>;

/** Bytes in use by each table, its indexes counted with it. */
async function weigh(databaseUrl: string, pgUrl: string | null, schema: string | undefined): Promise<Sizes> {
  if (pgUrl === null) {
    const db = new SQLite(databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      const rows = db
        .prepare(
          `select coalesce(m.tbl_name, s.name) as name, sum(s.pgsize - s.unused) as bytes
           from dbstat s left join sqlite_schema m on m.name = s.name group by 1`,
        )
        .all() as Array<{ name: string; bytes: number }>;
      return new Map(rows.map((row) => [row.name, Number(row.bytes)]));
    } finally {
      db.close();
    }
  }
  const handle = openDatabase(withSearchPath(pgUrl, schema ?? 'public'));
  try {
    const { rows } = await sql<{ name: string; bytes: string }>`
      select c.relname as name, pg_total_relation_size(c.oid) as bytes
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema ?? 'public'} and c.relkind = 'r'`.execute(handle.db);
    return new Map(rows.map((row) => [row.name, Number(row.bytes)]));
  } finally {
    await handle.close();
  }
}

const total = (sizes: Sizes) => [...sizes.values()].reduce((sum, bytes) => sum + bytes, 0);

async function main(): Promise<void> {
  const edits = Number(arg('edits', '1000'));
  const pageBytes = Number(arg('page-kb', '20')) * 1024;
  const port = await portArg('port');
  const fixedPort = await portArg('fixed-port');
  const dir = arg('data', path.join(os.tmpdir(), 'quire-bench-history'));
  const backend = backendFromArgs('history');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const servers = serverRun(backend, [dir]);
  const sqliteUrl = `sqlite:${path.join(dir, 'quire.db')}`;
  const api = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1${route}`, {
      method,
      headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  try {
    if (backend.pgUrl !== null && backend.schema !== undefined)
      await prepareSchema(backend.pgUrl, backend.schema);
    await startQuire(servers, backend, {
      databaseUrl: sqliteUrl,
      port,
      fixedPort,
      env: {
        QUIRE_BOOTSTRAP: 'true',
        QUIRE_BOOTSTRAP_KEY: KEY,
        RENDER_AHEAD: arg('render-ahead', 'true'),
      },
    });
    const rnd = random(38);
    const line = () =>
      Array.from({ length: 6 + Math.floor(rnd() * 10) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(
        ' ',
      );
    const lines: string[] = [];
    while (Buffer.byteLength(lines.join('\n')) < pageBytes) lines.push(line());
    const version = await api<{ id: number }>('POST', '/version', { name: 'history-bench' });
    const section = await api<{ id: number }>('POST', `/version/${version.id}/documentation`, {
      title: 'Growth',
    });
    const before = await weigh(sqliteUrl, backend.pgUrl, backend.schema);
    const written = [lines.join('\n')];
    const page = await api<{ id: number }>('POST', `/documentation/${section.id}/page`, {
      title: 'Growing page',
      content: written[0],
    });
    const size = Buffer.byteLength(written[0]!);
    const started = performance.now();
    for (let edit = 1; edit <= edits; edit++) {
      lines[Math.floor(rnd() * lines.length)] = line();
      written.push(lines.join('\n'));
      await api('PUT', `/page/${page.id}`, { content: written[edit] });
    }
    const editMs = (performance.now() - started) / edits;
    // Outputs rendered ahead are stored a moment after their write: let the last ones land.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = await weigh(sqliteUrl, backend.pgUrl, backend.schema);

    const readStarted = performance.now();
    for (let revision = 1; revision <= written.length; revision++) {
      const got = await api<{ contentDraft: string | null }>('GET', `/page/${page.id}/history/${revision}`);
      if (got.contentDraft !== written[revision - 1])
        throw new Error(`revision ${revision} reads back changed`);
    }
    const readMs = (performance.now() - readStarted) / written.length;

    const grew = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    const history = grew('page_history');
    const multiple = (bytes: number) => `${(bytes / size).toFixed(1)}× the page`;
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
    process.stdout.write(
      `${backend.label}: a page of ${kb(size)} (${size} bytes) created, then edited ${edits} times by one line ` +
        `(${editMs.toFixed(1)} ms per edit); every revision read back unchanged (${readMs.toFixed(2)} ms per read)\n`,
    );
    process.stdout.write(`page_history grew ${kb(history)}: ${multiple(history)}\n`);
    const whole = total(after) - total(before);
    process.stdout.write(`the whole database grew ${kb(whole)}: ${multiple(whole)}; by table:\n`);
    const tables = [...after.keys()]
      .map((name) => [name, grew(name)] as const)
      .filter(([, bytes]) => bytes > 0);
    for (const [name, bytes] of tables.sort((a, b) => b[1] - a[1]).slice(0, 8)) {
      process.stdout.write(`  ${name.padEnd(24)} ${kb(bytes).padStart(10)}  ${multiple(bytes)}\n`);
    }
    process.stdout.write(`\ngoal (history ≤ 10× the page): ${history <= 10 * size ? 'met' : 'NOT met'}\n`);
    const jsonFile = arg('json', '');
    if (jsonFile !== '') {
      const values = { growth: history / size, database: whole / size };
      writeFileSync(
        jsonFile,
        `${JSON.stringify({ title: `history ${backend.label}`, rows: {}, values }, null, 2)}\n`,
      );
    }
  } finally {
    await servers.cleanUp();
  }
}

await main();
