/**
 * Export and import of a large project: 10,000 pages of realistic Darkdown (1–8 KB, one in ten with
 * a pending draft; bench/seed-pages.ts), served by Quire in a child process on SQLite or PostgreSQL.
 *
 *   node --import tsx bench/export.bench.ts [--pages 10000] [--rounds 3] [--readers 4]
 *        [--data $TMPDIR/quire-bench] [--port P] [--fixed-port P] [--fixed-duration 2]
 *        [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *
 * Ports not given are chosen by the system. SQLite data is seeded once per page count into `--data`
 * and each run works on a copy of it, removed at the end; `--pg` seeds PostgreSQL in a schema of this
 * run's own, dropped at the end, and `--redis` keeps the rate-limit counters in Redis under a key
 * prefix of its own, deleted at the end.
 *
 * Each round starts with a `--fixed-duration` s run of a plain Fastify route that answers a fixed JSON
 * object (a child process of its own): its req/s, printed with the round, shows how busy the machine
 * was. Then the whole project is exported over HTTP twice: alone, then while `--readers` clients read
 * pages (`GET /page/{id}?format=html`, one request after another each) for as long as it runs; then
 * the archive of the first is imported (`POST /import`) into a new project of the same server.
 *
 * Printed per round and as the median of rounds: for each export, the time to the first byte and to
 * the last, the archive's size and the growth of the server's resident memory during it (read every
 * 10 ms from /proc); for the second, the readers' requests with their p50 and p99; for the import, its
 * time and pages per second; for each, the server's RSS at its end and its CPU time (from /proc), on
 * PostgreSQL also its database sessions' CPU time. In round 1 the readers meet pages never rendered.
 *
 * Goals (decisions of the export issue): export under 3 s, server RSS growth under 150 MB, other
 * requests served meanwhile.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { CLI_ACTOR, wholeProject } from '../src/auth/actor.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { backendFromArgs, portArg, serverRun } from './fixtures/backend.ts';
import { measureFixed } from './fixtures/fixed-server.ts';
import { arg, random } from './fixtures/load.ts';
import { RoundTable, SERVER_COLUMNS, sampled, serverFigures, type Sampled } from './fixtures/operations.ts';
import { startQuire } from './fixtures/quire-server.ts';
import { seededDatabase, seedPages } from './seed-pages.ts';

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

interface ExportRun {
  ttfbMs: number;
  archive: Buffer;
}

/** GET /export: the time to its first byte, and the archive. */
function exportOnce(port: number, key: string): Promise<ExportRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let ttfbMs = Number.NaN;
    const chunks: Buffer[] = [];
    const request = http.get({
      host: '127.0.0.1',
      port,
      path: '/api/v1/export',
      headers: { 'x-api-key': key },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      if (response.statusCode !== 200) reject(new Error(`export answered ${response.statusCode}`));
      response.on('data', (chunk: Buffer) => {
        if (chunks.length === 0) ttfbMs = performance.now() - started;
        chunks.push(chunk);
      });
      response.on('end', () => resolve({ ttfbMs, archive: Buffer.concat(chunks) }));
    });
  });
}

/** Readers, one request after another each, until `until` settles: every latency in ms. */
async function readWhile(
  base: string,
  key: string,
  pageIds: number[],
  readers: number,
  until: Promise<unknown>,
): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const rnd = random(3);
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: readers }, async () => {
      while (!done) {
        const id = pageIds[Math.floor(rnd() * pageIds.length)] ?? 1;
        const started = performance.now();
        const res = await fetch(`${base}/api/v1/page/${id}?format=html`, { headers: { 'x-api-key': key } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`page read answered ${res.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

/** Projects with a key each, to import into, made directly in the database the server uses. */
async function emptyProjects(databaseUrl: string, schema: string | undefined, count: number) {
  const deps = createDeps(
    loadConfig({ DATABASE_URL: databaseUrl, QUIRE_BOOTSTRAP: 'false', LOG_LEVEL: 'silent' }),
    schema !== undefined ? { schema } : {},
  );
  try {
    const cli = { actor: CLI_ACTOR, ipAddress: null };
    const keys: string[] = [];
    for (let n = 1; n <= count; n++) {
      const project = await deps.projects.create(cli, {
        name: `Import ${Date.now()} ${n}`,
        plan: 'enterprise',
      });
      const { key } = await deps.keys.create(
        { ...cli, scope: wholeProject(project) },
        { permissions: 'all', versions: 'all' },
      );
      keys.push(key);
    }
    return keys;
  } finally {
    await deps.close();
  }
}

/** A copy of the seeded SQLite file for this run (it imports into it), and what to remove after. */
function workCopy(databaseUrl: string, dir: string): { databaseUrl: string; files: string[] } {
  const work = path.join(dir, `export-${process.pid}.db`);
  const files = [work, `${work}-wal`, `${work}-shm`, `${work}.webhook-key`];
  for (const file of files) fs.rmSync(file, { force: true });
  fs.copyFileSync(databaseUrl.slice('sqlite:'.length), work);
  return { databaseUrl: `sqlite:${work}`, files };
}

async function main(): Promise<void> {
  const pages = Number(arg('pages', '10000'));
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const readers = Number(arg('readers', '4'));
  const fixedSeconds = Number(arg('fixed-duration', '2'));
  const port = await portArg('port');
  const fixedPort = await portArg('fixed-port');
  const backend = backendFromArgs('export');
  const dir = arg('data', path.join(os.tmpdir(), 'quire-bench'));

  const seeded =
    backend.pgUrl !== null
      ? { ...(await seedPages(backend.pgUrl, pages, backend.schema)), databaseUrl: backend.pgUrl }
      : await seededDatabase(dir, pages);
  const work =
    backend.pgUrl !== null ? { databaseUrl: backend.pgUrl, files: [] } : workCopy(seeded.databaseUrl, dir);
  const servers = serverRun(backend, work.files);
  const base = `http://127.0.0.1:${port}`;
  try {
    const importKeys = await emptyProjects(work.databaseUrl, backend.schema, rounds);
    const { pid, fixed, sessions } = await startQuire(servers, backend, {
      databaseUrl: work.databaseUrl,
      port,
      fixedPort,
    });
    process.stdout.write(
      `data: ${pages} pages on ${backend.label} ` +
        `(${backend.schema !== undefined ? `schema ${backend.schema}` : work.databaseUrl}); ` +
        `${readers} readers during the second export of each round\n`,
    );
    const table = new RoundTable(
      {
        firstByteMs: { title: 'first byte ms', digits: 0 },
        ms: { title: 'complete ms', digits: 0 },
        archiveMiB: { title: 'archive MiB', digits: 1 },
        rssGrowthMb: { title: 'server RSS growth MB', digits: 0 },
        reads: { title: 'page reads', digits: 0 },
        readP50Ms: { title: 'read p50 ms', digits: 1 },
        readP99Ms: { title: 'read p99 ms', digits: 1 },
        pagesPerSecond: { title: 'pages/s', digits: 0 },
        ...SERVER_COLUMNS,
      },
      (text) => process.stdout.write(text),
    );
    const exportFigures = (s: Sampled<ExportRun>) => ({
      firstByteMs: s.value.ttfbMs,
      ms: s.ms,
      archiveMiB: s.value.archive.length / 1024 / 1024,
      rssGrowthMb: s.rssGrowthMb,
      ...serverFigures(s),
    });
    const alone = `export alone`;
    const withReaders = `export with ${readers} readers`;
    const imported = 'import of the archive (POST /import)';
    for (let round = 1; round <= rounds; round++) {
      const reference = await measureFixed(fixed, fixedSeconds);
      // Alone first, then with readers: what the export costs, and what it leaves the others.
      const first = await sampled(pid, () => exportOnce(port, seeded.key), sessions);
      let latencies: number[] = [];
      const second = await sampled(
        pid,
        async () => {
          const running = exportOnce(port, seeded.key);
          latencies = await readWhile(base, seeded.key, seeded.pageIds, readers, running);
          return running;
        },
        sessions,
      );
      const importing = await sampled(
        pid,
        async () => {
          const res = await fetch(`${base}/api/v1/import`, {
            method: 'POST',
            headers: { 'x-api-key': importKeys[round - 1] ?? '', 'content-type': 'application/zip' },
            body: new Uint8Array(first.value.archive),
          });
          const report = (await res.json()) as { pages?: number };
          if (res.status !== 201) throw new Error(`import answered ${res.status}: ${JSON.stringify(report)}`);
          return report.pages ?? 0;
        },
        sessions,
      );
      table.round(round, rounds, reference, [
        [alone, exportFigures(first)],
        [
          withReaders,
          {
            ...exportFigures(second),
            reads: latencies.length,
            readP50Ms: percentile(latencies, 50),
            readP99Ms: percentile(latencies, 99),
          },
        ],
        [
          imported,
          {
            ms: importing.ms,
            pagesPerSecond: importing.value / (importing.ms / 1000),
            rssGrowthMb: importing.rssGrowthMb,
            ...serverFigures(importing),
          },
        ],
      ]);
    }
    const medians = table.medians();
    const exported = medians.get(alone);
    const reads = medians.get(withReaders)?.reads ?? 0;
    const met = (exported?.ms ?? Infinity) < 3000 && (exported?.rssGrowthMb ?? Infinity) < 150 && reads > 0;
    process.stdout.write(
      `\ngoal (export alone < 3 s, RSS growth < 150 MB, pages read meanwhile): ${met ? 'met' : 'NOT met'} ` +
        `(median ${(exported?.ms ?? Number.NaN).toFixed(0)} ms, +${(exported?.rssGrowthMb ?? Number.NaN).toFixed(0)} MB, ` +
        `${reads.toFixed(0)} reads)\n`,
    );
  } finally {
    await servers.cleanUp();
  }
}

await main();
