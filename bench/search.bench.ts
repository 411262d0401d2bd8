/**
 * Search under load: a project of 10,000 published pages of generated prose (5–20 H2 sections each),
 * its index built from scratch (timed), then `GET /search` with a mix of one-, two- and three-word
 * queries, prefixes and phrases over 50 connections, next to a plain Fastify route that returns a
 * fixed JSON object in the same run. The Quire server and the plain server each run in a child
 * process; autocannon runs here. Rate limits are scaled out of the way.
 *
 *   node --import tsx bench/search.bench.ts [--pages 10000] [--duration 10] [--connections 50]
 *        [--rounds 3] [--data $TMPDIR/quire-bench-search] [--port P] [--fixed-port P]
 *        [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]] [--json FILE]
 *
 * `--json FILE` writes the medians of the two rows there (fixed, search), for bench/table.ts.
 *
 * Ports not given are chosen by the system. SQLite data is seeded once per page count into `--data`
 * and reused; `--pg` seeds PostgreSQL in a schema of this run's own, dropped at the end, and `--redis`
 * keeps the rate-limit counters in Redis under a key prefix of its own, deleted at the end. The index
 * build is timed once, when the data is made.
 *
 * Each round first asks each query once, one at a time, of a server that has answered none of them
 * (from round 2 the answers it keeps are made stale first: another connection moves the projects'
 * change stamps), and times those first answers: what the engine costs per query. The round's load
 * runs then see a server that has answered every query once, as a long-running server has (answers
 * are kept until the project changes).
 *
 * Printed per round and as the median of rounds: the first answers' p50, p99 and max with the
 * server's CPU time per query; for each load run, req/s, the ratio to the fixed route in the same
 * round, p50/p99, the answering server's RSS and its CPU time per request (on PostgreSQL, its
 * database sessions' too).
 *
 * Goal (SQLite): p50 under 5 ms and p99 under 20 ms.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import Fastify from 'fastify';
import { CLI_ACTOR, wholeProject } from '../src/auth/actor.ts';
import { loadConfig } from '../src/config.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { createDeps } from '../src/deps.ts';
import { slugify } from '../src/shared/slug.ts';
import { backendFromArgs, median, portArg, serverRun, withSearchPath } from './fixtures/backend.ts';
import { arg, random, startChild } from './fixtures/load.ts';
import { sampled } from './fixtures/operations.ts';
import { runRounds, writeFigures, type LoadRow } from './fixtures/rounds.ts';
import { waitFor } from './fixtures/wait.ts';

const HERE = fileURLToPath(import.meta.url);
const PAGES_PER_SECTION = 500;

/** Words of documentation prose, the most frequent first; picked with a Zipf-like skew. */
const VOCABULARY = (
  'the to of and a in is for you that with on your can this be it are as by from or an api request ' +
  'when will each if not all use page key version project set see its more one new which any must ' +
  'response token section publish draft content deploy service client server cache index search query ' +
  'header limit window field value schema error retry timeout webhook account member role permission ' +
  'export import format render preview release migration database connection pool replica backup ' +
  'restore snapshot cluster region latency throughput bandwidth storage bucket object upload download ' +
  'stream event queue worker thread process memory disk network proxy gateway certificate domain ' +
  'redirect session cookie login logout password secret credential signature payload endpoint route ' +
  'parameter argument option default variable template theme layout sidebar navigation heading ' +
  'paragraph table column row list item link image video diagram example tutorial guide reference ' +
  'changelog feature deprecation compatibility upgrade install configure enable disable create update ' +
  'delete archive rename move copy share invite approve reject review comment notify subscribe ' +
  'billing invoice payment plan quota usage metric dashboard report alert incident status health ' +
  'monitor trace log audit policy compliance encryption rotation expiry scope tenant organization ' +
  'team workspace environment staging production sandbox local remote mirror sync merge branch commit ' +
  'pipeline build artifact container image registry cluster node scheduler cron batch job task'
).split(' ');

function prose(rnd: () => number) {
  // Rank r is drawn with weight about 1/r: frequent words are frequent, most are rare.
  const word = () => VOCABULARY[Math.floor(Math.exp(rnd() * Math.log(VOCABULARY.length))) - 1] ?? 'api';
  const sentence = () => {
    const words = Array.from({ length: 8 + Math.floor(rnd() * 13) }, word);
    const first = words[0] ?? 'the';
    words[0] = first.charAt(0).toUpperCase() + first.slice(1);
    return `${words.join(' ')}.`;
  };
  const paragraph = () => Array.from({ length: 2 + Math.floor(rnd() * 4) }, sentence).join(' ');
  const heading = () => {
    const text = Array.from({ length: 2 + Math.floor(rnd() * 3) }, word).join(' ');
    return text.charAt(0).toUpperCase() + text.slice(1);
  };
  return { word, sentence, paragraph, heading };
}

function pageContent(rnd: () => number): string {
  const { paragraph, heading } = prose(rnd);
  const blocks = [paragraph()];
  const sections = 5 + Math.floor(rnd() * 16);
  for (let s = 0; s < sections; s++) {
    blocks.push(`## ${heading()}`);
    for (let p = 0; p < 1 + Math.floor(rnd() * 3); p++) blocks.push(paragraph());
  }
  return `${blocks.join('\n\n')}\n`;
}

/** What readers type: one to three words, a third of them still being typed, some phrases. */
function queries(count: number): string[] {
  const rnd = random(7);
  const { word, sentence } = prose(rnd);
  return Array.from({ length: count }, () => {
    const kind = rnd();
    if (kind < 0.1) {
      const words = sentence().toLowerCase().replace('.', '').split(' ');
      const at = Math.floor(rnd() * (words.length - 1));
      return `"${words[at]} ${words[at + 1]}"`;
    }
    const words = Array.from({ length: kind < 0.5 ? 1 : kind < 0.8 ? 2 : 3 }, word);
    const last = words[words.length - 1] ?? 'api';
    if (rnd() < 0.33 && last.length > 4) words[words.length - 1] = last.slice(0, 3 + Math.floor(rnd() * 2));
    return words.join(' ');
  });
}

interface Seeded {
  databaseUrl: string;
  key: string;
  pages: number;
  entries: number;
  indexMs: number;
}

/** A SQLite file seeded once per page count in `dir`, reused by later runs. */
async function seededFile(dir: string, pageCount: number): Promise<Seeded> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `search-${pageCount}.db`);
  const meta = `${file}.json`;
  if (fs.existsSync(meta)) return JSON.parse(fs.readFileSync(meta, 'utf8')) as Seeded;
  for (const stale of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(stale, { force: true });
  const seeded = await seed(`sqlite:${file}`, undefined, pageCount);
  fs.writeFileSync(meta, JSON.stringify(seeded));
  return seeded;
}

/** Seeds `pageCount` pages and builds their index (timed); on PostgreSQL in `schema`. */
async function seed(databaseUrl: string, schema: string | undefined, pageCount: number): Promise<Seeded> {
  const deps = createDeps(
    loadConfig({ DATABASE_URL: databaseUrl, QUIRE_BOOTSTRAP: 'false', LOG_LEVEL: 'silent' }),
    schema !== undefined ? { schema } : {},
  );
  try {
    await upgradeDatabase(deps.database, schema);
    const cli = { actor: CLI_ACTOR, ipAddress: null };
    const project = await deps.projects.create(cli, { name: 'Search bench', plan: 'enterprise' });
    const ctx = { ...cli, scope: wholeProject(project) };
    const version = await deps.versions.create(ctx, { name: 'v1', slug: 'v1', published: true });
    const rnd = random(42);
    const { heading } = prose(rnd);
    const now = new Date().toISOString();
    for (let start = 0; start < pageCount; start += PAGES_PER_SECTION) {
      const section = await deps.documentation.create(ctx, version.id, {
        title: `Section ${start / PAGES_PER_SECTION + 1}`,
        published: true,
      });
      const count = Math.min(PAGES_PER_SECTION, pageCount - start);
      for (let batch = 0; batch < count; batch += 100) {
        const rows = Array.from({ length: Math.min(100, count - batch) }, (_, j) => {
          const title = `${heading()} ${start + batch + j + 1}`;
          return {
            documentation_id: section.id,
            category_id: null,
            parent_page_id: null,
            title,
            slug: slugify(title),
            listed: 1,
            content_published: pageContent(rnd),
            content_draft: null,
            position: batch + j + 1,
            deleted_at: null,
            created: now,
            updated: now,
          };
        });
        await deps.database.db.insertInto('pages').values(rows).execute();
      }
    }
    // The pages were written behind the indexer's back: building their index is the measured step.
    const started = performance.now();
    const { projects } = await deps.search.reindex(project.id);
    const indexMs = Math.round(performance.now() - started);
    const { key } = await deps.keys.create(ctx, { permissions: ['search.read'], versions: 'all' });
    return { databaseUrl, key, pages: pageCount, entries: projects[0]?.entries ?? 0, indexMs };
  } finally {
    await deps.close();
  }
}

const MOVE_STAMPS =
  'insert into change_stamps (project_id, stamp) select id, 1 from projects where true ' +
  'on conflict (project_id) do update set stamp = change_stamps.stamp + 1';

/**
 * Makes the answers a server keeps stale: another connection moves every project's change stamp,
 * under which the answers are kept, as a write to the project's pages would.
 */
async function forgetAnswers(databaseUrl: string, pgUrl: string | null, schema: string | undefined) {
  if (pgUrl === null) {
    const sqlite = new SQLite(databaseUrl.slice('sqlite:'.length));
    try {
      sqlite.prepare(MOVE_STAMPS).run();
    } finally {
      sqlite.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: schema ? withSearchPath(pgUrl, schema) : pgUrl });
  await client.connect();
  try {
    await client.query(MOVE_STAMPS);
  } finally {
    await client.end();
  }
}

const describeFirsts = (
  f: { p50: number; p99: number; max: number; cpuUs: number; databaseCpuUs: number | null },
  count: number,
): string =>
  `first answer to each of the ${count} queries, one at a time: p50 ${f.p50.toFixed(1)} ms, ` +
  `p99 ${f.p99.toFixed(1)} ms, max ${f.max.toFixed(1)} ms; server CPU ${f.cpuUs.toFixed(0)} µs per query` +
  (f.databaseCpuUs === null ? '' : `, database CPU ${f.databaseCpuUs.toFixed(0)} µs per query`);

async function main(): Promise<void> {
  const pages = Number(arg('pages', '10000'));
  const duration = Number(arg('duration', '10'));
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const connections = Number(arg('connections', '50'));
  const quirePort = await portArg('port');
  const fixedPort = await portArg('fixed-port');
  const backend = backendFromArgs('search');

  // On PostgreSQL the server's sessions are found by name, and their CPU reported with its own.
  const { children, databaseCpu, cleanUp } = serverRun(backend);
  try {
    const seeded =
      backend.pgUrl !== null
        ? await seed(backend.pgUrl, backend.schema, pages)
        : await seededFile(arg('data', path.join(os.tmpdir(), 'quire-bench-search')), pages);
    process.stdout.write(
      `data: ${seeded.pages} pages, ${seeded.entries} index entries on ${backend.label} ` +
        `(${backend.schema !== undefined ? `schema ${backend.schema}` : seeded.databaseUrl}); ` +
        `index built from scratch in ${seeded.indexMs} ms (measured when the data was made)\n`,
    );
    children.push(
      startChild(['src/main.ts'], {
        ...backend.serverEnv(seeded.databaseUrl),
        HOST: '127.0.0.1',
        PORT: String(quirePort),
        RATE_LIMIT_SCALE: '1000000',
        QUIRE_BOOTSTRAP: 'false',
        LOG_LEVEL: 'warn',
      }),
      startChild([HERE, '--fixed-server', String(fixedPort)], {}),
    );
    const [quirePid, fixedPid] = children.map((c) => c.pid);
    if (quirePid === undefined || fixedPid === undefined) throw new Error('a server did not start');
    const quire = `http://127.0.0.1:${quirePort}`;
    const fixed = `http://127.0.0.1:${fixedPort}`;
    await Promise.all([
      waitFor(`${quire}/readyz`, 120_000, children[0]),
      waitFor(`${fixed}/fixed`, 120_000, children[1]),
    ]);
    const list = queries(500);
    const sessions =
      databaseCpu !== null ? () => databaseCpu.cpuMs(backend.applicationName('server')) : undefined;
    const at = (values: number[], q: number) =>
      [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))] ?? NaN;
    // Each query once, one at a time, on a server that has answered none of them: what the engine
    // costs before any answer is kept. Later rounds first make the kept answers stale (the projects'
    // change stamps moved by another connection). The load runs then see a server that has answered
    // each query once, as a long-running one has.
    const firsts: Array<{
      p50: number;
      p99: number;
      max: number;
      cpuUs: number;
      databaseCpuUs: number | null;
    }> = [];
    const firstAnswers = async (round: number): Promise<string> => {
      if (round > 1) await forgetAnswers(seeded.databaseUrl, backend.pgUrl, backend.schema);
      const matched: number[] = [];
      const firstMs: number[] = [];
      const run = await sampled(
        quirePid,
        async () => {
          for (const query of list) {
            const started = performance.now();
            const res = await fetch(`${quire}/api/v1/search?query=${encodeURIComponent(query)}`, {
              headers: { 'x-api-key': seeded.key },
            });
            if (res.status !== 200) throw new Error(`search for ${query} answered ${res.status}`);
            matched.push(((await res.json()) as { nbHits: number }).nbHits);
            firstMs.push(performance.now() - started);
          }
        },
        sessions,
      );
      const first = {
        p50: at(firstMs, 0.5),
        p99: at(firstMs, 0.99),
        max: at(firstMs, 1),
        cpuUs: (run.cpuMs * 1000) / list.length,
        databaseCpuUs: run.databaseCpuMs === null ? null : (run.databaseCpuMs * 1000) / list.length,
      };
      firsts.push(first);
      return (
        (round === 1
          ? `queries: ${list.length} (e.g. ${list.slice(0, 6).join(' | ')}); matches per query: ` +
            `median ${at(matched, 0.5)}, max ${at(matched, 1)}\n`
          : '') + `${describeFirsts(first, list.length)}\n\n`
      );
    };
    const rows: LoadRow[] = [
      {
        name: 'fixed JSON route (plain Fastify)',
        pid: fixedPid,
        warmupSeconds: 2,
        options: { url: `${fixed}/fixed`, connections, duration },
      },
      {
        name: 'GET /search (mixed queries)',
        pid: quirePid,
        warmupSeconds: 2,
        ...(databaseCpu !== null
          ? { databaseCpuMs: () => databaseCpu.cpuMs(backend.applicationName('server')) }
          : {}),
        options: {
          url: quire,
          connections,
          duration,
          headers: { 'x-api-key': seeded.key },
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                path: `/api/v1/search?query=${encodeURIComponent(list[Math.floor(Math.random() * list.length)] ?? 'api')}`,
              }),
            },
          ],
        },
      },
    ];
    process.stdout.write(
      `\n${backend.label}, ${connections} connections, ${duration} s per run after a 2 s warm-up run\n`,
    );
    const measured = await runRounds(rows, rounds, (text) => process.stdout.write(text), {
      beforeRound: firstAnswers,
    });
    const of = (pick: (f: (typeof firsts)[number]) => number) => median(firsts.map(pick));
    process.stdout.write(
      `\nmedian of ${rounds} round(s): ` +
        describeFirsts(
          {
            p50: of((f) => f.p50),
            p99: of((f) => f.p99),
            max: of((f) => f.max),
            cpuUs: of((f) => f.cpuUs),
            databaseCpuUs: firsts.some((f) => f.databaseCpuUs === null)
              ? null
              : of((f) => f.databaseCpuUs ?? 0),
          },
          list.length,
        ) +
        '\n',
    );
    const jsonFile = arg('json', '');
    if (jsonFile !== '') writeFigures(jsonFile, `search ${backend.label}`, ['fixed', 'search'], measured);
    const search = {
      p50: median((measured[1] ?? []).map((m) => m.result.latency.p50)),
      p99: median((measured[1] ?? []).map((m) => m.result.latency.p99)),
    };
    const met = search.p50 < 5 && search.p99 < 20;
    process.stdout.write(
      `\ngoal (p50 < 5 ms, p99 < 20 ms): ${met ? 'met' : 'NOT met'} (median p50 ${search.p50} ms, p99 ${search.p99} ms)\n`,
    );
  } finally {
    await cleanUp();
  }
}

if (process.argv[2] === '--fixed-server') {
  const app = Fastify({ logger: false });
  app.get('/fixed', () => ({ hits: [], nbHits: 0, page: 0, nbPages: 0, hitsPerPage: 20, query: 'fixed' }));
  await app.listen({ host: '127.0.0.1', port: Number(process.argv[3]) });
} else {
  await main();
}
