/**
 * Read throughput of pages against a listening `quire serve`, each row next to a plain Fastify route
 * that returns a fixed JSON object, measured in the same round on the same machine. The Quire servers
 * and the plain server each run in a child process; autocannon runs here. Rate limits are scaled out
 * of the way.
 *
 *   node --import tsx bench/pages.bench.ts [--pages 10000] [--ids uniform|zipf|uniform,zipf] [--zipf 1.0]
 *        [--duration 10] [--connections 50] [--rounds 3] [--warmup 2] [--warm-all 20000]
 *        [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *        [--data $TMPDIR/quire-bench-pages] [--port P] [--info-port P] [--fixed-port P]
 *        [--instances 1|2] [--second-port P] [--json FILE]
 *
 * Ports not given are chosen by the system. `--pg` seeds PostgreSQL in a schema of this run's own and
 * drops it at the end; `--redis` keeps the rate-limit counters in Redis under a key prefix of its own,
 * deleted at the end. SQLite data is seeded once per page count into `--data` and reused.
 *
 * Rows: the fixed route; a bare point read of the same page rows from the same database (plain
 * Fastify, no key, no schema: what the payload costs); `GET /page/{id}?format=html` with each id
 * distribution of `--ids`; `GET /page` by slugs (version_slug, documentation_slug, page_slug); the
 * html read again on a second server at `LOG_LEVEL=info` (its log written to a file) where the others
 * run at `warn`; `format=darkdown`; and the html read with each page's current ETag in If-None-Match
 * (304, no body). Ids are uniform over every page, or Zipf-skewed (exponent `--zipf`) over a shuffled
 * order of the pages. Up to `--warm-all` pages, every page is read once in each format and once by
 * its slugs before the rounds (a cached server, as a long-running one is); above it, each row's
 * unmeasured warm-up run (`--warmup` s, default 10 then) fills the caches with what that row's
 * distribution asks for.
 *
 * Printed per round and then as the median of rounds per row: req/s, the ratio to the fixed route,
 * p50/p99, the answering server's RSS, and its CPU time per request (from /proc, before and after);
 * on PostgreSQL also the CPU time per request of that server's database sessions (found by their
 * application_name; on SQLite the database works inside the server process, in its figure).
 *
 * With `--instances 2` a second server at LOG_LEVEL=warn answers beside the first, and one more row
 * loads both at once (half the connections each, as behind a balancer): its req/s are the two
 * servers' together. `--json FILE` writes the medians of every row there, for bench/table.ts.
 *
 * Goals (issue 16), judged on the medians of the rounds: see htmlGoal for the html read by id; by
 * slugs at least 0.95 of by id (the issue asks for the same); `LOG_LEVEL=info` within 10% of `warn`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { pageAddresses, seededDatabase, seedPages, type PageAddress } from './seed-pages.ts';
import { backendFromArgs, median, portArg, serverRun } from './fixtures/backend.ts';
import { sampler, type IndexSampler } from './fixtures/ids.ts';
import { arg, startChild, type CannonOptions, type RequestSpec } from './fixtures/load.ts';
import { runRounds, writeFigures, type LoadRow } from './fixtures/rounds.ts';
import { waitFor } from './fixtures/wait.ts';

const HERE = fileURLToPath(import.meta.url);
const FIXED = { id: 1, title: 'Fixed', slug: 'fixed', listed: true, path: 'v1/guides/fixed' };
const BARE_COLUMNS = 'id, listed, title, created, updated, slug, content_draft, content_published';

/**
 * The reference points: the cheapest useful Fastify route there is, and a bare point read of the
 * same page rows (`sqlite:FILE` through better-sqlite3, or a PostgreSQL URL through a pg pool).
 */
async function fixedServer(port: number, bare: string): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/fixed', () => FIXED);
  if (bare.startsWith('sqlite:')) {
    const sqlite = new SQLite(bare.slice('sqlite:'.length), { readonly: true });
    const read = sqlite.prepare<[number], Record<string, unknown>>(
      `select ${BARE_COLUMNS} from pages where id = ?`,
    );
    app.get<{ Params: { id: string } }>('/bare/:id', (request) => read.get(Number(request.params.id)) ?? {});
  } else {
    const pool = new pg.Pool({ connectionString: bare, max: 10 });
    const text = `select ${BARE_COLUMNS} from pages where id = $1`;
    app.get<{ Params: { id: string } }>('/bare/:id', async (request) => {
      const { rows } = await pool.query({ name: 'bare-page', text, values: [Number(request.params.id)] });
      return (rows[0] as Record<string, unknown> | undefined) ?? {};
    });
  }
  await app.listen({ host: '127.0.0.1', port });
}

/** Reads each page once by its slugs, in html: where they lead is then kept, as on a long-running server. */
async function warmBySlugs(base: string, key: string, addresses: readonly PageAddress[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < addresses.length) {
      const a = addresses[next++];
      if (a === undefined) break;
      const query = new URLSearchParams({
        version_slug: a.versionSlug,
        documentation_slug: a.documentationSlug,
        page_slug: a.pageSlug,
        format: 'html',
      });
      const res = await fetch(`${base}/api/v1/page?${query.toString()}`, { headers: { 'x-api-key': key } });
      if (res.status !== 200) throw new Error(`warm-up read of page ${a.id} by slugs answered ${res.status}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/** Reads each page once in the format; returns each page's ETag, for the conditional run. */
async function warm(
  base: string,
  key: string,
  ids: readonly number[],
  format: string,
): Promise<Map<number, string>> {
  const tags = new Map<number, string>();
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      const res = await fetch(`${base}/api/v1/page/${id}?format=${format}`, {
        headers: { 'x-api-key': key },
      });
      if (res.status !== 200) throw new Error(`warm-up read of page ${id} answered ${res.status}`);
      await res.arrayBuffer();
      const tag = res.headers.get('etag');
      if (id !== undefined && tag !== null) tags.set(id, tag);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return tags;
}

async function main(): Promise<void> {
  const pages = Number(arg('pages', '10000'));
  const duration = Number(arg('duration', '10'));
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const connections = Number(arg('connections', '50'));
  const exponent = Number(arg('zipf', '1.0'));
  const distributions = arg('ids', 'uniform').split(',');
  const warmAll = pages <= Number(arg('warm-all', '20000'));
  const warmupSeconds = Number(arg('warmup', warmAll ? '2' : '10'));
  const instances = Number(arg('instances', '1'));
  if (instances !== 1 && instances !== 2) throw new Error(`--instances must be 1 or 2 (got ${instances})`);
  const [quirePort, infoPort, fixedPort, secondPort] = [
    await portArg('port'),
    await portArg('info-port'),
    await portArg('fixed-port'),
    await portArg('second-port'),
  ];
  const backend = backendFromArgs('pages');
  const dataDir = arg('data', path.join(os.tmpdir(), 'quire-bench-pages'));

  const started = Date.now();
  const logFile = path.join(dataDir, `info-${process.pid}.log`);
  const { children, databaseCpu, cleanUp } = serverRun(backend, [logFile]);
  try {
    let seed: { key: string; databaseUrl: string };
    if (backend.pgUrl !== null && backend.schema !== undefined) {
      const { key } = await seedPages(backend.pgUrl, pages, backend.schema);
      seed = { key, databaseUrl: backend.serverDatabaseUrl('', 'bare') };
    } else {
      seed = await seededDatabase(dataDir, pages);
    }
    const addresses: PageAddress[] = await pageAddresses(backend.pgUrl ?? seed.databaseUrl, backend.schema);
    const ids = addresses.map((a) => a.id);
    process.stdout.write(
      `data: ${ids.length} pages on ${backend.label}${backend.schema ? ` (schema ${backend.schema})` : ` (${seed.databaseUrl})`}, ` +
        `ready in ${Date.now() - started} ms\n`,
    );

    const serverEnv = {
      HOST: '127.0.0.1',
      RATE_LIMIT_SCALE: '1000000',
      QUIRE_BOOTSTRAP: 'false',
    };
    fs.mkdirSync(dataDir, { recursive: true });
    const logFd = fs.openSync(logFile, 'a');
    children.push(
      startChild(['src/main.ts'], {
        ...serverEnv,
        ...backend.serverEnv(seed.databaseUrl, 'warn'),
        PORT: String(quirePort),
        LOG_LEVEL: 'warn',
      }),
      startChild(
        ['src/main.ts'],
        {
          ...serverEnv,
          ...backend.serverEnv(seed.databaseUrl, 'info'),
          PORT: String(infoPort),
          LOG_LEVEL: 'info',
        },
        logFd,
      ),
      startChild([HERE, '--fixed-server', String(fixedPort), '--bare', seed.databaseUrl], {}),
    );
    fs.closeSync(logFd);
    const [quireChild, infoChild, fixedChild] = children;
    const secondChild =
      instances === 2
        ? startChild(['src/main.ts'], {
            ...serverEnv,
            ...backend.serverEnv(seed.databaseUrl, 'second'),
            PORT: String(secondPort),
            LOG_LEVEL: 'warn',
          })
        : undefined;
    if (secondChild !== undefined) children.push(secondChild);
    const second = `http://127.0.0.1:${secondPort}`;
    const pids = [quireChild?.pid, infoChild?.pid, fixedChild?.pid];
    const [quirePid, infoPid, fixedPid] = pids;
    if (quirePid === undefined || infoPid === undefined || fixedPid === undefined) {
      throw new Error('a server did not start');
    }
    const quire = `http://127.0.0.1:${quirePort}`;
    const info = `http://127.0.0.1:${infoPort}`;
    const fixed = `http://127.0.0.1:${fixedPort}`;
    await Promise.all([
      waitFor(`${quire}/readyz`, 120_000),
      waitFor(`${info}/readyz`, 120_000),
      waitFor(`${fixed}/fixed`, 120_000),
      ...(secondChild !== undefined ? [waitFor(`${second}/readyz`, 120_000)] : []),
    ]);

    const samplers: IndexSampler[] = distributions.map((d) => sampler(d.trim(), ids.length, exponent));
    const first = samplers[0];
    if (!first) throw new Error('--ids names no distribution');
    for (const s of samplers) {
      process.stdout.write(
        `ids ${s.distribution}${s.distribution === 'zipf' ? ` (s = ${exponent})` : ''}: the 1,000 most ` +
          `requested pages take ${(100 * s.topShare(1_000)).toFixed(1)}% of requests, the 20,000 most ` +
          `${(100 * s.topShare(20_000)).toFixed(1)}%\n`,
      );
    }

    const warmStarted = Date.now();
    let tags: Map<number, string>;
    if (warmAll) {
      [tags] = await Promise.all([
        warm(quire, seed.key, ids, 'html'),
        warm(quire, seed.key, ids, 'darkdown'),
        warm(info, seed.key, ids, 'html'),
        ...(secondChild !== undefined ? [warm(second, seed.key, ids, 'html')] : []),
      ]);
      // By slugs after the reads by id, so that these find the answers made and keep only where they lead.
      await warmBySlugs(quire, seed.key, addresses);
    } else {
      // The conditional run needs ETags: those of 2,000 pages drawn as that run draws them.
      const drawn = [...new Set(Array.from({ length: 2_000 }, () => ids[first.next()] ?? 1))];
      tags = await warm(quire, seed.key, drawn, 'html');
    }
    process.stdout.write(
      warmAll
        ? `every page read once in each format, and once by its slugs, before the rounds (${Date.now() - warmStarted} ms)\n`
        : `pages above --warm-all: each row's ${warmupSeconds} s warm-up run fills the caches\n`,
    );
    const tagged = [...tags.keys()];

    const load = (url: string, path: (s: IndexSampler) => (req: RequestSpec) => RequestSpec) => {
      return (s: IndexSampler, headers: Record<string, string> = {}): CannonOptions => ({
        url,
        connections,
        duration,
        headers,
        requests: [{ setupRequest: path(s) }],
      });
    };
    const byId = (format: string) => (s: IndexSampler) => (req: RequestSpec) => ({
      ...req,
      path: `/api/v1/page/${ids[s.next()] ?? 1}?format=${format}`,
    });
    const bySlugs = (s: IndexSampler) => (req: RequestSpec) => {
      const a = addresses[s.next()];
      const query = new URLSearchParams({
        version_slug: a?.versionSlug ?? '',
        documentation_slug: a?.documentationSlug ?? '',
        page_slug: a?.pageSlug ?? '',
        format: 'html',
      });
      return { ...req, path: `/api/v1/page?${query.toString()}` };
    };
    const conditional = () => (req: RequestSpec) => {
      const id = tagged[Math.floor(Math.random() * tagged.length)] ?? 1;
      return {
        ...req,
        path: `/api/v1/page/${id}?format=html`,
        headers: { ...req.headers, 'if-none-match': tags.get(id) ?? '' },
      };
    };
    const auth = { 'x-api-key': seed.key };
    // On PostgreSQL each server's sessions carry its role in their name: their CPU is reported too.
    const row = (name: string, pid: number, options: CannonOptions, role?: string): LoadRow => ({
      name,
      pid,
      options,
      warmupSeconds,
      ...(databaseCpu !== null && role !== undefined
        ? { databaseCpuMs: () => databaseCpu.cpuMs(backend.applicationName(role)) }
        : {}),
    });
    const rows: LoadRow[] = [
      row('fixed JSON route (plain Fastify)', fixedPid, {
        url: `${fixed}/fixed`,
        connections,
        duration,
      }),
      row(
        `bare ${backend.pgUrl !== null ? 'pg' : 'better-sqlite3'} point read (plain Fastify), ${first.distribution}`,
        fixedPid,
        load(fixed, (s) => (req) => ({ ...req, path: `/bare/${ids[s.next()] ?? 1}` }))(first),
        'bare',
      ),
      ...samplers.map((s) =>
        row(
          `GET /page/{id} format=html, ${s.distribution}`,
          quirePid,
          load(quire, byId('html'))(s, auth),
          'warn',
        ),
      ),
      row(
        `GET /page by slugs format=html, ${first.distribution}`,
        quirePid,
        load(quire, bySlugs)(first, auth),
        'warn',
      ),
      row(
        `GET /page/{id} format=html at LOG_LEVEL=info, ${first.distribution}`,
        infoPid,
        load(info, byId('html'))(first, auth),
        'info',
      ),
      row(
        `GET /page/{id} format=darkdown, ${first.distribution}`,
        quirePid,
        load(quire, byId('darkdown'))(first, auth),
        'warn',
      ),
      row(
        `GET /page/{id} format=html, If-None-Match current (304, counted as non-2xx), ${tagged.length} pages`,
        quirePid,
        load(quire, conditional)(first, auth),
        'warn',
      ),
    ];
    if (secondChild?.pid !== undefined) {
      // Both instances at once, half the connections each: reads spread as a balancer spreads them.
      const half = (options: CannonOptions) => ({ ...options, connections: Math.ceil(connections / 2) });
      rows.push({
        ...row(
          `GET /page/{id} format=html on 2 instances at once, ${first.distribution}`,
          quirePid,
          half(load(quire, byId('html'))(first, auth)),
        ),
        alsoOn: [{ pid: secondChild.pid, options: half(load(second, byId('html'))(first, auth)) }],
      });
    }
    process.stdout.write(
      `\n${backend.label}, ${ids.length} pages, ${connections} connections, ${duration} s per run after a ` +
        `${warmupSeconds} s warm-up run; servers at LOG_LEVEL=warn unless the row says otherwise\n`,
    );
    const measured = await runRounds(rows, rounds, (text) => process.stdout.write(text));
    const jsonFile = arg('json', '');
    if (jsonFile !== '') {
      const names = [
        'fixed',
        'bare',
        ...samplers.map((s) => `html ${s.distribution}`),
        'slugs',
        'info',
        'darkdown',
        'conditional',
      ];
      if (secondChild !== undefined) names.push('two instances');
      writeFigures(jsonFile, `pages ${backend.label}, ${ids.length} pages`, names, measured);
    }

    // Rows against each other, round by round (the same round's load on both), then the median.
    const versus = (a: number, b: number): string =>
      median(
        (measured[a] ?? []).map(
          (m, round) => m.result.requests.average / (measured[b]?.[round]?.result.requests.average || 1),
        ),
      ).toFixed(2);
    const htmlRow = 2;
    const slugRow = htmlRow + samplers.length;
    process.stdout.write(
      `\nmedian of the per-round ratios of req/s: by slugs / by id ${versus(slugRow, htmlRow)}; ` +
        `LOG_LEVEL=info / warn ${versus(slugRow + 1, htmlRow)}` +
        samplers
          .slice(1)
          .map((s, i) => `; ${s.distribution} / ${first.distribution} ${versus(htmlRow + 1 + i, htmlRow)}`)
          .join('') +
        '\n',
    );

    // Issue 16's goals for what this run measured: each html row (one per distribution) on the
    // median of its rounds, by slugs and LOG_LEVEL=info against the first html row.
    const medianOf = (row: number) => {
      const runs = measured[row] ?? [];
      return {
        ratio: median(runs.map((m) => m.ratio)),
        p99: median(runs.map((m) => m.result.latency.p99)),
      };
    };
    const verdicts = samplers.map((s, i) => {
      const { ratio, p99 } = medianOf(htmlRow + i);
      const goal = htmlGoal(backend.pgUrl !== null, warmAll, s.distribution);
      const met = ratio >= goal.ratio && (goal.p99 === undefined || p99 < goal.p99);
      const p99Goal = goal.p99 === undefined ? '' : `, p99 < ${goal.p99} ms`;
      return (
        `html, ${s.distribution} (>= ${goal.ratio} of fixed${p99Goal}): ${met ? 'met' : 'NOT met'} ` +
        `(median ratio ${ratio.toFixed(2)}, p99 ${p99} ms)`
      );
    });
    const relative = (row: number, floor: number, what: string) => {
      const value = Number(versus(row, htmlRow));
      return `${what} (>= ${floor} of by id, ${first.distribution}): ${value >= floor ? 'met' : 'NOT met'} (${value.toFixed(2)})`;
    };
    verdicts.push(relative(slugRow, 0.95, 'by slugs'), relative(slugRow + 1, 0.9, 'LOG_LEVEL=info'));
    process.stdout.write(`
goals (issue 16):
${verdicts.map((v) => `- ${v}\n`).join('')}`);
  } finally {
    await cleanUp();
  }
}

/**
 * Issue 16's goal for the html read by id: cached on PostgreSQL + Redis >= 0.25; on SQLite, a project
 * whose pages all fit the caches (every page read before the rounds) >= 0.55 with p99 under 5 ms; a
 * larger one >= 0.3 with Zipf-skewed ids and >= 0.15 with uniform ones.
 */
function htmlGoal(pg: boolean, cached: boolean, distribution: string): { ratio: number; p99?: number } {
  if (pg) return { ratio: 0.25 };
  if (cached) return { ratio: 0.55, p99: 5 };
  return { ratio: distribution === 'zipf' ? 0.3 : 0.15 };
}

if (process.argv.includes('--fixed-server')) {
  await fixedServer(Number(arg('fixed-server', '0')), arg('bare', ''));
} else {
  await main();
}
