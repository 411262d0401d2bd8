/**
 * GET /all on a big project, over real HTTP: seeds a project (10,000 pages by default), starts the
 * app on 127.0.0.1, and times sequential requests after a warm-up. Prints median and p95 in ms.
 *
 *   node --import tsx bench/all.bench.ts
 *   BENCH_PAGES=20000 BENCH_RUNS=50 node --import tsx bench/all.bench.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx bench/all.bench.ts
 *
 * Exits 1 when a p95 reaches the budget (300 ms), so it can guard a CI job.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { createDeps } from '../src/deps.ts';
import { seedAllProject } from './seed-all.ts';

const BUDGET_MS = 300;
const PAGES = Number(process.env.BENCH_PAGES ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const WARMUP = 5;
const postgresUrl = process.env.BENCH_DATABASE_URL;

function percentile(sortedMs: number[], p: number): number {
  const index = Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1);
  return sortedMs[Math.max(0, index)] ?? Number.NaN;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

async function main(): Promise<void> {
  let tmpDir: string | null = null;
  let databaseUrl: string;
  let schema: string | undefined;
  if (postgresUrl !== undefined) {
    databaseUrl = postgresUrl;
    schema = `bench_${randomBytes(4).toString('hex')}`;
  } else {
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-all-'));
    databaseUrl = `sqlite:${path.join(tmpDir, 'quire.db')}`;
  }
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    QUIRE_BOOTSTRAP: 'false',
    LOG_LEVEL: 'silent',
    // The benchmark makes more requests than the operation's 30 an hour.
    RATE_LIMIT_SCALE: '1000',
  });
  const deps = createDeps(config, schema !== undefined ? { schema } : {});
  try {
    await upgradeDatabase(deps.database, schema);
    const seedStart = performance.now();
    const seeded = await seedAllProject(deps, {
      pages: PAGES,
      versions: 4,
      sectionsPerVersion: 10,
      referencesPerVersion: 5,
    });
    const seedMs = performance.now() - seedStart;

    const app = await buildApp(deps, { logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}/api/v1/all`;
    const headers = { 'x-api-key': seeded.key };

    const time = async (query: string) => {
      let bytes = 0;
      let pages = 0;
      const samples: number[] = [];
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const start = performance.now();
        const res = await fetch(`${base}${query}`, { headers });
        const body = await res.text();
        const elapsed = performance.now() - start;
        if (res.status !== 200)
          throw new Error(`GET /all${query} answered ${res.status}: ${body.slice(0, 200)}`);
        if (i === 0) {
          bytes = Buffer.byteLength(body);
          pages = Object.keys((JSON.parse(body) as { page: object }).page).length;
        }
        if (i >= WARMUP) samples.push(elapsed);
      }
      samples.sort((a, b) => a - b);
      return {
        query: query || '(none)',
        pages,
        kib: Math.round(bytes / 1024),
        median: round(percentile(samples, 50)),
        p95: round(percentile(samples, 95)),
      };
    };

    const results = [await time(''), await time('?published=true'), await time('?versionId=latest')];
    await app.close();

    process.stdout.write(
      `GET /all on ${deps.database.dialect}: ${seeded.pages} pages seeded in ${round(seedMs / 1000)} s; ` +
        `${RUNS} sequential requests after ${WARMUP} warm-up, budget ${BUDGET_MS} ms\n`,
    );
    for (const r of results) {
      process.stdout.write(
        `  query ${r.query.padEnd(18)} pages ${String(r.pages).padStart(6)}  body ${String(r.kib).padStart(5)} KiB  ` +
          `median_ms ${r.median}  p95_ms ${r.p95}\n`,
      );
    }
    const over = results.filter((r) => r.p95 >= BUDGET_MS);
    if (over.length > 0) {
      process.stdout.write(`OVER BUDGET: ${over.map((r) => r.query).join(', ')}\n`);
      process.exitCode = 1;
    }
  } finally {
    if (schema !== undefined)
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(deps.database.db);
    await deps.close();
    if (tmpDir !== null) fs.rmSync(tmpDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
