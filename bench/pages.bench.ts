/**
 * Read throughput of pages against a listening server, next to a plain Fastify route that returns a
 * fixed JSON object, measured in the same run on the same machine. The Quire server and the plain
 * server each run in a child process; autocannon runs here. Rate limits are scaled out of the way.
 *
 *   node --import tsx bench/pages.bench.ts [--pages 10000] [--duration 10] [--connections 50] [--rounds 1]
 *                                          [--data $TMPDIR/quire-bench-pages] [--port 18480] [--fixed-port 18481]
 *
 * A last run sends each page's current ETag in If-None-Match: 304 answers, no body.
 *
 * Goal: `GET /page/{id}?format=html` reaches at least a third of the fixed route's requests per
 * second, with p99 under 10 ms.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import { seededDatabase } from './seed-pages.ts';
import {
  arg,
  autocannon,
  startChild,
  type CannonOptions,
  type RequestSpec,
  type Result,
} from './fixtures/load.ts';
import { waitFor } from './fixtures/wait.ts';

const HERE = fileURLToPath(import.meta.url);
const FIXED = { id: 1, title: 'Fixed', slug: 'fixed', listed: true, path: 'v1/guides/fixed' };

/**
 * The reference points: the cheapest useful Fastify route there is, and a bare better-sqlite3 point
 * read of the same page rows (no key, no rate limit, no schema), which shows what the payload costs.
 */
async function fixedServer(port: number, databaseFile: string): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/fixed', () => FIXED);
  const sqlite = new SQLite(databaseFile, { readonly: true });
  const read = sqlite.prepare<[number], Record<string, unknown>>(
    'select id, listed, title, created, updated, slug, content_draft, content_published from pages where id = ?',
  );
  app.get<{ Params: { id: string } }>('/bare/:id', (request) => read.get(Number(request.params.id)) ?? {});
  await app.listen({ host: '127.0.0.1', port });
}

/**
 * Reads every page once in the format, so the measured run sees what a long-running server sees.
 * Returns each page's ETag, for the conditional run.
 */
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
  const rounds = Math.max(1, Number(arg('rounds', '1')));
  const connections = Number(arg('connections', '50'));
  const quirePort = Number(arg('port', '18480'));
  const fixedPort = Number(arg('fixed-port', '18481'));

  const started = Date.now();
  const seed = await seededDatabase(arg('data', path.join(os.tmpdir(), 'quire-bench-pages')), pages);
  process.stdout.write(
    `data: ${seed.pageIds.length} pages (${seed.databaseUrl}), ready in ${Date.now() - started} ms\n`,
  );

  const children = [
    startChild(['src/main.ts'], {
      DATABASE_URL: seed.databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(quirePort),
      RATE_LIMIT_SCALE: '1000000',
      QUIRE_BOOTSTRAP: 'false',
      LOG_LEVEL: 'warn',
    }),
    startChild(
      [HERE, '--fixed-server', String(fixedPort), '--db', seed.databaseUrl.slice('sqlite:'.length)],
      {},
    ),
  ];
  try {
    const quire = `http://127.0.0.1:${quirePort}`;
    const fixed = `http://127.0.0.1:${fixedPort}`;
    await Promise.all([waitFor(`${quire}/readyz`), waitFor(`${fixed}/fixed`)]);
    const htmlTags = await warm(quire, seed.key, seed.pageIds, 'html');
    await warm(quire, seed.key, seed.pageIds, 'darkdown');

    const ids = seed.pageIds;
    const randomPath = (path: (id: number | undefined) => string) => ({
      setupRequest: (req: RequestSpec): RequestSpec => ({
        ...req,
        path: path(ids[Math.floor(Math.random() * ids.length)]),
      }),
    });
    const randomPage = (format: string) => randomPath((id) => `/api/v1/page/${id}?format=${format}`);
    const runs: Array<[string, CannonOptions]> = [
      ['fixed JSON route (plain Fastify)', { url: `${fixed}/fixed`, connections, duration }],
      [
        'bare better-sqlite3 point read (plain Fastify)',
        { url: fixed, connections, duration, requests: [randomPath((id) => `/bare/${id}`)] },
      ],
      [
        'GET /page/{id} format=darkdown',
        {
          url: quire,
          connections,
          duration,
          headers: { 'x-api-key': seed.key },
          requests: [randomPage('darkdown')],
        },
      ],
      [
        'GET /page/{id} format=html',
        {
          url: quire,
          connections,
          duration,
          headers: { 'x-api-key': seed.key },
          requests: [randomPage('html')],
        },
      ],
      [
        'GET /page/{id} format=html, If-None-Match current (304, counted as non-2xx)',
        {
          url: quire,
          connections,
          duration,
          headers: { 'x-api-key': seed.key },
          requests: [
            {
              setupRequest: (req: RequestSpec): RequestSpec => {
                const id = ids[Math.floor(Math.random() * ids.length)] ?? 1;
                return {
                  ...req,
                  path: `/api/v1/page/${id}?format=html`,
                  headers: { ...req.headers, 'if-none-match': htmlTags.get(id) ?? '' },
                };
              },
            },
          ],
        },
      ],
    ];
    // Rounds interleave the runs, so that a burst of load from elsewhere on the machine does not fall on
    // one run only; each run reports its median round (by requests per second).
    const results = runs.map(() => [] as Result[]);
    for (let round = 0; round < rounds; round++) {
      for (const [i, [, options]] of runs.entries()) {
        // A short unmeasured run first: JIT warm-up and connection set-up stay out of the figures.
        await autocannon({ ...options, duration: 2 });
        results[i]?.push(await autocannon(options));
      }
    }
    const rows = runs.map(([name], i) => {
      const sorted = [...(results[i] ?? [])].sort((a, b) => a.requests.average - b.requests.average);
      const result = sorted[Math.floor(sorted.length / 2)];
      if (!result) throw new Error(`no result for ${name}`);
      return { name, result };
    });

    const baseline = rows[0]?.result.requests.average ?? 1;
    process.stdout.write(
      `\n${connections} connections, ${duration} s each, median of ${rounds} round(s), ${pages} pages, random page per request\n\n` +
        `| run | req/s | vs fixed | p50 ms | p99 ms | non-2xx | errors |\n|---|---:|---:|---:|---:|---:|---:|\n`,
    );
    for (const { name, result } of rows) {
      const ratio = result.requests.average / baseline;
      process.stdout.write(
        `| ${name} | ${Math.round(result.requests.average)} | ${ratio.toFixed(2)} | ${result.latency.p50} | ` +
          `${result.latency.p99} | ${result.non2xx} | ${result.errors + result.timeouts} |\n`,
      );
    }
    const html = rows[3]?.result;
    if (html) {
      const ratio = html.requests.average / baseline;
      const met = ratio >= 1 / 3 && html.latency.p99 < 10;
      process.stdout.write(
        `\nhtml goal (>= 1/3 of fixed, p99 < 10 ms): ${met ? 'met' : 'NOT met'} (${ratio.toFixed(2)}, p99 ${html.latency.p99} ms)\n`,
      );
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}

if (process.argv.includes('--fixed-server')) {
  await fixedServer(Number(arg('fixed-server', '18481')), arg('db', ''));
} else {
  await main();
}
