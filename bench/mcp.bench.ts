/**
 * The MCP servers' `search` against `GET /search` on the same data: a public project of `--pages`
 * published pages (bench/seed-pages.ts), its index built here, and the Quire server (src/main.ts) in
 * a child process with rate limits scaled out of the way. For each of three targets autocannon sends
 * `--duration` seconds of requests over `--connections` connections, cycling through the same
 * queries: `GET /api/v1/search?query=…&hits=10` with a key, a `tools/call` of `search` to the reader
 * server (`/sites/{id}/mcp`, no key) and the same to the writer server (`/api/v1/mcp`, with the key).
 * Each target is warmed first with one pass over the queries (the search service keeps answers under
 * the project's change stamp, for the API and the tools alike).
 *
 *   node --import tsx bench/mcp.bench.ts [--pages 1000] [--duration 10] [--connections 10]
 *        [--rounds 3] [--sequential 2000] [--data $TMPDIR/quire-bench-pages] [--port P]
 *
 * Printed per round and as the median of rounds: req/s, p50 and p99 per target, and each MCP
 * server's p50 as a multiple of `GET /search`'s. Goal: at most 2×. Autocannon's latencies are whole
 * milliseconds, in which `GET /search`'s p50 rounds to 0; so, last, each target is also asked
 * `--sequential` times over one keep-alive connection, one request after another (0 skips it), and
 * its p50 and p99 are printed in microseconds, with each MCP server's p50 as a multiple of
 * `GET /search`'s: the latency a client sees when the server is not saturated.
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { median, portArg } from './fixtures/backend.ts';
import { arg, autocannon, startChild, stopped, type Result } from './fixtures/load.ts';
import { waitFor } from './fixtures/wait.ts';
import { seededDatabase } from './seed-pages.ts';

const pageCount = Number(arg('pages', '1000'));
const duration = Number(arg('duration', '10'));
const connections = Number(arg('connections', '10'));
const rounds = Number(arg('rounds', '3'));
const sequential = Number(arg('sequential', '2000'));
const dir = arg('data', path.join(os.tmpdir(), 'quire-bench-pages'));
const port = await portArg('port');

/** What an agent asks: words of the seeded prose, single and paired, and prefixes. */
const QUERIES = [
  'webhook',
  'api key',
  'token',
  'deploy service',
  'cache',
  'rate limit',
  'search index',
  'migration',
  'publish draft',
  'schema error',
  'retry timeout',
  'export format',
  'permission',
  'release',
  'client server',
  'sess',
];

const seeded = await seededDatabase(dir, pageCount);
const projectId = await indexed(seeded.databaseUrl);
const base = `http://127.0.0.1:${port}`;
const children: ChildProcess[] = [];
const server = startChild(['src/main.ts'], {
  DATABASE_URL: seeded.databaseUrl,
  HOST: '127.0.0.1',
  PORT: String(port),
  RATE_LIMIT_SCALE: '1000000',
  QUIRE_BOOTSTRAP: 'false',
  LOG_LEVEL: 'warn',
  RENDER_AHEAD: 'false',
});
children.push(server);

/** The seeded pages were written behind the indexer's back: their index is built once per run. */
async function indexed(databaseUrl: string): Promise<number> {
  const deps = createDeps(
    loadConfig({ DATABASE_URL: databaseUrl, QUIRE_BOOTSTRAP: 'false', LOG_LEVEL: 'silent' }),
  );
  try {
    await upgradeDatabase(deps.database);
    const project = await deps.database.db
      .selectFrom('projects')
      .select('id')
      .where('name', '=', 'Bench')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const started = performance.now();
    const { projects } = await deps.search.reindex(project.id);
    console.log(
      `index: ${projects[0]?.entries ?? 0} entries of ${pageCount} pages in ${Math.round(performance.now() - started)} ms`,
    );
    return project.id;
  } finally {
    await deps.close();
  }
}

interface Target {
  name: string;
  method: 'GET' | 'POST';
  path: (query: string) => string;
  body: ((query: string, id: number) => string) | null;
  headers: Record<string, string>;
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const toolCall = (query: string, id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'search', arguments: { query } },
  });

const targets: Target[] = [
  {
    name: 'GET /search',
    method: 'GET',
    path: (query) => `/api/v1/search?query=${encodeURIComponent(query)}&hits=10`,
    body: null,
    headers: { 'x-api-key': seeded.key },
  },
  {
    name: 'reader MCP search',
    method: 'POST',
    path: () => `/sites/${projectId}/mcp`,
    body: toolCall,
    headers: MCP_HEADERS,
  },
  {
    name: 'writer MCP search',
    method: 'POST',
    path: () => '/api/v1/mcp',
    body: toolCall,
    headers: { ...MCP_HEADERS, 'x-api-key': seeded.key },
  },
];

/** One pass over the queries, one at a time, each answer checked: a tool error is a failed bench. */
async function warm(target: Target): Promise<void> {
  for (const [i, query] of QUERIES.entries()) {
    const res = await fetch(`${base}${target.path(query)}`, {
      method: target.method,
      headers: target.headers,
      ...(target.body === null ? {} : { body: target.body(query, i) }),
    });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"isError":true')) {
      throw new Error(`${target.name} ${query}: ${res.status} ${text.slice(0, 200)}`);
    }
  }
}

/** `count` requests over one keep-alive connection, one after another: each one's µs, sorted. */
async function oneByOne(target: Target, count: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const query = QUERIES[i % QUERIES.length] ?? 'api';
      const body = target.body === null ? null : target.body(query, i);
      const started = performance.now();
      await new Promise<void>((resolve, reject) => {
        const request = http.request(
          `${base}${target.path(query)}`,
          {
            method: target.method,
            agent,
            headers: {
              ...target.headers,
              ...(body === null ? {} : { 'content-length': Buffer.byteLength(body) }),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 200 ? resolve() : reject(new Error(`${target.name}: ${res.statusCode}`)),
            );
          },
        );
        request.on('error', reject);
        request.end(body ?? undefined);
      });
      times.push((performance.now() - started) * 1000);
    }
  } finally {
    agent.destroy();
  }
  return times.sort((a, b) => a - b);
}

async function load(target: Target): Promise<Result> {
  let next = 0;
  const run = autocannon as unknown as (options: Record<string, unknown>) => Promise<Result>;
  return run({
    url: base,
    connections,
    duration,
    requests: [
      {
        method: target.method,
        headers: target.headers,
        setupRequest: (request: Record<string, unknown>) => {
          const query = QUERIES[next % QUERIES.length] ?? 'api';
          next += 1;
          return {
            ...request,
            path: target.path(query),
            ...(target.body === null ? {} : { body: target.body(query, next) }),
          };
        },
      },
    ],
  });
}

try {
  await waitFor(`${base}/readyz`, 120_000, server);
  for (const target of targets) await warm(target);
  const results = new Map<string, Result[]>(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= rounds; round += 1) {
    for (const target of targets) {
      const result = await load(target);
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(`${target.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      }
      results.get(target.name)?.push(result);
      console.log(
        `round ${round} ${target.name.padEnd(18)} ${Math.round(result.requests.average)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms`,
      );
    }
  }
  const p50 = (name: string) => median((results.get(name) ?? []).map((r) => r.latency.p50));
  const searchP50 = p50('GET /search');
  console.log(
    `\nmedian of ${rounds} rounds (${pageCount} pages, ${connections} connections, ${duration} s):`,
  );
  for (const target of targets) {
    const runs = results.get(target.name) ?? [];
    const rps = Math.round(median(runs.map((r) => r.requests.average)));
    const p99 = median(runs.map((r) => r.latency.p99));
    const ratio = searchP50 > 0 ? (p50(target.name) / searchP50).toFixed(2) : 'n/a';
    console.log(
      `${target.name.padEnd(18)} ${rps} req/s  p50 ${p50(target.name)} ms  p99 ${p99} ms  p50 ×${ratio}`,
    );
  }
  if (sequential > 0) {
    const p50s = new Map<string, number>();
    console.log(`\none connection, ${sequential} requests one after another per target:`);
    for (const target of targets) {
      const times = await oneByOne(target, sequential);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN;
      p50s.set(target.name, at(0.5));
      const ratio = (at(0.5) / (p50s.get('GET /search') ?? Number.NaN)).toFixed(2);
      console.log(
        `${target.name.padEnd(18)} p50 ${Math.round(at(0.5))} µs  p99 ${Math.round(at(0.99))} µs  p50 ×${ratio}`,
      );
    }
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map(stopped));
}
