/**
 * Export and import of a large project: 10,000 pages of realistic Darkdown (1–8 KB, one in ten with
 * a pending draft; bench/seed-pages.ts), served by Quire in a child process on SQLite or PostgreSQL.
 *
 *   node --import tsx bench/export.bench.ts [--pages 10000] [--rounds 3] [--readers 4]
 *        [--data $TMPDIR/quire-bench] [--port P]
 *        [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *
 * The port, when not given, is chosen by the system. SQLite data is seeded once per page count into
 * `--data` and reused; `--pg` seeds PostgreSQL in a schema of this run's own, dropped at the end, and
 * `--redis` keeps the rate-limit counters in Redis under a key prefix of its own, deleted at the end.
 *
 * Each round exports the whole project over HTTP twice: alone, then while `--readers` clients read
 * pages (`GET /page/{id}?format=html`, one request after another each) for as long as it runs.
 * Printed per export: time to the first byte and to the last, the archive's size, the growth of the
 * server's resident memory during the export (sampled every 10 ms from /proc); for the second, the
 * readers' requests with their p50 and p99. In round 1 the readers meet pages never rendered. Then the archive is imported (`POST /import`) into a new project
 * of the same server: its time and pages per second.
 *
 * Goals (decisions of the export issue): export under 3 s, server RSS growth under 150 MB, other
 * requests served meanwhile.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { CLI_ACTOR, wholeProject } from '../src/auth/actor.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { backendFromArgs, portArg, sampleProcess } from './fixtures/backend.ts';
import { arg, random, startChild, stopped } from './fixtures/load.ts';
import { waitFor } from './fixtures/wait.ts';
import { seededDatabase, seedPages } from './seed-pages.ts';

const rssMb = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
};

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

interface ExportRun {
  ttfbMs: number;
  totalMs: number;
  bytes: number;
  rssGrowthMb: number;
  archive: Buffer;
}

/** GET /export, timed, while the server's memory is sampled. */
function exportOnce(port: number, key: string, pid: number): Promise<ExportRun> {
  return new Promise((resolve, reject) => {
    const baseline = rssMb(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 10);
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
      response.on('end', () => {
        clearInterval(sampler);
        const archive = Buffer.concat(chunks);
        resolve({
          ttfbMs,
          totalMs: performance.now() - started,
          bytes: archive.length,
          rssGrowthMb: peak - baseline,
          archive,
        });
      });
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

/** A second project with a key, made directly in the database the server uses. */
async function emptyProject(databaseUrl: string, schema: string | undefined): Promise<string> {
  const deps = createDeps(
    loadConfig({ DATABASE_URL: databaseUrl, QUIRE_BOOTSTRAP: 'false', LOG_LEVEL: 'silent' }),
    schema !== undefined ? { schema } : {},
  );
  try {
    const cli = { actor: CLI_ACTOR, ipAddress: null };
    const project = await deps.projects.create(cli, { name: `Import ${Date.now()}`, plan: 'enterprise' });
    const { key } = await deps.keys.create(
      { ...cli, scope: wholeProject(project) },
      { permissions: 'all', versions: 'all' },
    );
    return key;
  } finally {
    await deps.close();
  }
}

async function main(): Promise<void> {
  const pages = Number(arg('pages', '10000'));
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const readers = Number(arg('readers', '4'));
  const port = await portArg('port');
  const backend = backendFromArgs('export');
  let server: ChildProcess | undefined;
  let cleaned = false;
  const cleanUp = async () => {
    if (cleaned) return;
    cleaned = true;
    if (server) {
      server.kill('SIGTERM');
      await stopped(server);
    }
    await backend.cleanUp();
  };
  process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));
  const base = `http://127.0.0.1:${port}`;
  try {
    const seeded =
      backend.pgUrl !== null
        ? { ...(await seedPages(backend.pgUrl, pages, backend.schema)), databaseUrl: backend.pgUrl }
        : await seededDatabase(arg('data', path.join(os.tmpdir(), 'quire-bench')), pages);
    const importKey = await emptyProject(seeded.databaseUrl, backend.schema);
    server = startChild(['src/main.ts'], {
      ...backend.serverEnv(seeded.databaseUrl),
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_SCALE: '1000000',
      QUIRE_BOOTSTRAP: 'false',
      LOG_LEVEL: 'warn',
    });
    await waitFor(`${base}/readyz`, 120_000);
    const pid = server.pid ?? 0;
    process.stdout.write(
      `data: ${pages} pages on ${backend.label} ` +
        `(${backend.schema !== undefined ? `schema ${backend.schema}` : seeded.databaseUrl}); ` +
        `${readers} readers during each export\n`,
    );
    let archive: Buffer = Buffer.alloc(0);
    for (let round = 1; round <= rounds; round++) {
      // Alone first, then with readers: what the export costs, and what it leaves the others.
      const cpuBefore = sampleProcess(pid).cpuMs;
      const alone = await exportOnce(port, seeded.key, pid);
      const cpuAlone = sampleProcess(pid).cpuMs - cpuBefore;
      const running = exportOnce(port, seeded.key, pid);
      const latencies = await readWhile(base, seeded.key, seeded.pageIds, readers, running);
      const run = await running;
      archive = run.archive;
      process.stdout.write(
        `round ${round}: export alone: first byte ${alone.ttfbMs.toFixed(0)} ms, complete ${alone.totalMs.toFixed(0)} ms, ` +
          `${(alone.bytes / 1024 / 1024).toFixed(1)} MiB, server RSS +${alone.rssGrowthMb.toFixed(0)} MB, ` +
          `server CPU ${cpuAlone.toFixed(0)} ms; ` +
          `with ${readers} readers: first byte ${run.ttfbMs.toFixed(0)} ms, complete ${run.totalMs.toFixed(0)} ms, ` +
          `server RSS +${run.rssGrowthMb.toFixed(0)} MB, page reads meanwhile ${latencies.length}, ` +
          `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms\n`,
      );
    }
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/import`, {
      method: 'POST',
      headers: { 'x-api-key': importKey, 'content-type': 'application/zip' },
      body: archive,
    });
    const report = (await res.json()) as { pages?: number };
    const seconds = (performance.now() - started) / 1000;
    if (res.status !== 201) throw new Error(`import answered ${res.status}: ${JSON.stringify(report)}`);
    process.stdout.write(
      `import: ${report.pages ?? 0} pages in ${seconds.toFixed(1)} s, ${((report.pages ?? 0) / seconds).toFixed(0)} pages/s\n`,
    );
  } finally {
    await cleanUp();
  }
}

await main();
