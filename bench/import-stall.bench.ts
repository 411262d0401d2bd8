/**
 * Does a large import stall the server? A Quire server runs in a child process (`src/main.ts`, as
 * `quire serve` runs it) on a fresh SQLite file, or on PostgreSQL with `--pg`; it imports
 * (`POST /import`) an archive in the export layout of about `--mib` MiB inflated
 * (bench/fixtures/import-archive.ts: `--shape big`, pages of 4 MB, the default and the worse stall;
 * or `many` pages of 32 KiB), while a probe asks `/healthz` every 10 ms and, beside it, reads a page
 * of the project with the key (`GET /page/{id}`) every 10 ms, and goes on for `--tail` s after the
 * import answered (work left for after the commit stalls readers as much).
 *
 *   node --import tsx bench/import-stall.bench.ts [--shape big|many] [--mib 480] [--rounds 1]
 *        [--tail 2] [--data $TMPDIR/quire-bench-import] [--port P] [--fixed-port P]
 *        [--fixed-duration 2] [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://…]]
 *
 * Ports not given are chosen by the system. The archive is built once per shape and size into
 * `--data` and kept there; the database file is made anew each run and removed at the end, as are
 * the PostgreSQL schema and the Redis keys of `--pg` and `--redis`.
 *
 * Printed per round and as the median of rounds: the import's status, time and pages per second; the
 * worst and p99 latency of `/healthz` and the number of its polls, and the worst and p99 page read,
 * while the import ran and during the tail; the server's RSS growth, RSS and CPU time.
 *
 * Goal (the import-stall issue): on SQLite, `/healthz` worst under 100 ms during a 480 MiB import.
 */
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { backendFromArgs, portArg, prepareSchema, serverRun } from './fixtures/backend.ts';
import { measureFixed } from './fixtures/fixed-server.ts';
import { importArchive, type ArchiveShape } from './fixtures/import-archive.ts';
import { arg } from './fixtures/load.ts';
import { RoundTable, SERVER_COLUMNS, sampled, serverFigures } from './fixtures/operations.ts';
import { startQuire } from './fixtures/quire-server.ts';

const KEY = `qk_${'i'.repeat(40)}`;
const MiB = 1024 * 1024;

/**
 * Two polls in a thread of their own, so that sending 50 MiB from this process never delays one:
 * each waits 10 ms after its answer, then asks again. Each answer is kept with the moment it was
 * asked (ms since the epoch), for the main thread to tell the import's time from the tail's.
 */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
let stop = false;
parentPort.on('message', () => { stop = true; });
const poll = async (url, headers) => {
  const samples = [];
  while (!stop) {
    const at = performance.timeOrigin + performance.now();
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(url + ' answered ' + res.status);
    samples.push([at, performance.now() - started]);
    await new Promise((r) => setTimeout(r, 10));
  }
  return samples;
};
Promise.all([
  poll(workerData.health, {}),
  poll(workerData.page, { 'x-api-key': workerData.key }),
]).then(([health, page]) => parentPort.postMessage({ health, page }));
`;

type Samples = Array<[at: number, ms: number]>;

const worstAndP99 = (samples: Samples, from: number, to: number) => {
  const sorted = samples
    .filter(([at]) => at >= from && at < to)
    .map(([, ms]) => ms)
    .sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { worst: at(1), p99: at(0.99), count: sorted.length };
};

async function main(): Promise<void> {
  const shapeArg = arg('shape', 'big');
  if (shapeArg !== 'many' && shapeArg !== 'big')
    throw new Error(`--shape must be many or big (got '${shapeArg}')`);
  const shape: ArchiveShape = shapeArg;
  const mib = Number(arg('mib', '480'));
  const rounds = Math.max(1, Number(arg('rounds', '1')));
  const tailMs = Number(arg('tail', '2')) * 1000;
  const fixedSeconds = Number(arg('fixed-duration', '2'));
  const port = await portArg('port');
  const fixedPort = await portArg('fixed-port');
  const dir = arg('data', path.join(os.tmpdir(), 'quire-bench-import'));
  const backend = backendFromArgs('import');
  const dbDir = path.join(dir, `db-${process.pid}`);
  rmSync(dbDir, { recursive: true, force: true });
  mkdirSync(dbDir, { recursive: true });
  const archive = importArchive(dir, shape, mib);
  const servers = serverRun(backend, [dbDir]);
  const base = `http://127.0.0.1:${port}`;
  const api = (route: string, init: RequestInit = {}) =>
    fetch(`${base}/api/v1${route}`, {
      ...init,
      headers: { 'x-api-key': KEY, ...(init.headers as Record<string, string> | undefined) },
    });
  try {
    if (backend.pgUrl !== null && backend.schema !== undefined)
      await prepareSchema(backend.pgUrl, backend.schema);
    // The demo project (enterprise) and its key: the import adds versions to it.
    const { pid, fixed, sessions } = await startQuire(servers, backend, {
      databaseUrl: `sqlite:${path.join(dbDir, 'quire.db')}`,
      port,
      fixedPort,
      env: { QUIRE_BOOTSTRAP: 'true', QUIRE_BOOTSTRAP_KEY: KEY },
    });
    const versions = (await (await api('/version')).json()) as Array<{ id: number }>;
    const sections = (await (await api(`/version/${versions[0]?.id ?? 0}/documentation`)).json()) as Array<{
      id: number;
    }>;
    const created = await api(`/documentation/${sections[0]?.id ?? 0}/page`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Read meanwhile', content: 'A page read while the import runs.' }),
    });
    const { id: pageId } = (await created.json()) as { id: number };
    if (!created.ok) throw new Error(`the page to read answered ${created.status}`);
    process.stdout.write(
      `${backend.label}${backend.schema ? ` (schema ${backend.schema})` : ''}: an archive of ` +
        `${archive.pages} pages, about ${(archive.inflatedBytes / MiB).toFixed(0)} MiB inflated, ` +
        `${(archive.zip.length / MiB).toFixed(1)} MiB uploaded; /healthz and a page read every 10 ms\n`,
    );

    const table = new RoundTable(
      {
        status: { title: 'status', digits: 0 },
        ms: { title: 'import ms', digits: 0 },
        pagesPerSecond: { title: 'pages/s', digits: 0 },
        healthWorstMs: { title: '/healthz worst ms', digits: 1 },
        healthP99Ms: { title: '/healthz p99 ms', digits: 1 },
        healthPolls: { title: '/healthz polls', digits: 0 },
        readWorstMs: { title: 'page read worst ms', digits: 1 },
        readP99Ms: { title: 'page read p99 ms', digits: 1 },
        readPolls: { title: 'page reads', digits: 0 },
        rssGrowthMb: { title: 'server RSS growth MB', digits: 0 },
        ...SERVER_COLUMNS,
      },
      (text) => process.stdout.write(text),
    );
    const during = 'during the import';
    const tail = `the ${tailMs / 1000} s after it answered`;
    for (let round = 1; round <= rounds; round++) {
      const reference = await measureFixed(fixed, fixedSeconds);
      const probe = new Worker(PROBE, {
        eval: true,
        workerData: { health: `${base}/healthz`, page: `${base}/api/v1/page/${pageId}`, key: KEY },
      });
      const probed = new Promise<{ health: Samples; page: Samples }>((resolve, reject) => {
        probe.once('message', resolve);
        probe.once('error', reject);
      });
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      const run = await sampled(
        pid,
        async () => {
          const res = await api('/import', {
            method: 'POST',
            headers: { 'content-type': 'application/zip' },
            body: new Uint8Array(archive.zip),
          });
          const report = (await res.json()) as { pages?: number };
          return { status: res.status, pages: report.pages ?? 0 };
        },
        sessions,
      );
      const answered = Date.now();
      await new Promise((r) => setTimeout(r, tailMs));
      probe.postMessage('stop');
      const { health, page } = await probed;
      await probe.terminate();
      const figures = (from: number, to: number) => {
        const h = worstAndP99(health, from, to);
        const p = worstAndP99(page, from, to);
        return {
          healthWorstMs: h.worst,
          healthP99Ms: h.p99,
          healthPolls: h.count,
          readWorstMs: p.worst,
          readP99Ms: p.p99,
          readPolls: p.count,
        };
      };
      table.round(round, rounds, reference, [
        [
          during,
          {
            status: String(run.value.status),
            ms: run.ms,
            pagesPerSecond: run.value.pages / (run.ms / 1000),
            ...figures(started, answered),
            rssGrowthMb: run.rssGrowthMb,
            ...serverFigures(run),
          },
        ],
        [tail, figures(answered, Number.POSITIVE_INFINITY)],
      ]);
    }
    const medians = table.medians();
    const worst = Math.max(
      medians.get(during)?.healthWorstMs ?? Infinity,
      medians.get(tail)?.healthWorstMs ?? Infinity,
    );
    process.stdout.write(
      `\ngoal (/healthz worst < 100 ms during the import and after it): ${worst < 100 ? 'met' : 'NOT met'} ` +
        `(worst ${worst.toFixed(1)} ms)\n`,
    );
  } finally {
    await servers.cleanUp();
  }
}

await main();
