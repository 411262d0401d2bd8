/**
 * Webhook delivery delay: from a change's commit (the answer to `PUT /page/{id}/publish`) to its
 * receipt by a webhook receiver, for `--events` publishes a round, on SQLite or, with `--pg`, on
 * PostgreSQL in a schema of this run's own (dropped at the end).
 *
 *   node --import tsx bench/webhooks.bench.ts [--events 1000] [--clients 4] [--rounds 3] [--port P]
 *        [--receiver-port P] [--fixed-port P] [--fixed-duration 2]
 *        [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *
 * `--database-url URL` is the older spelling of `--pg URL`. `--redis` keeps the rate-limit counters in
 * Redis under a key prefix of this run's own, deleted at the end. Ports not given are chosen by the
 * system.
 *
 * The server (`src/main.ts` with its dispatcher, as `quire serve` runs) is a child process on
 * `--port`, so that its CPU time and memory are its own; a receiver answering 204 listens on
 * `--receiver-port` in this process, both on 127.0.0.1. Each round makes `--events` new pages, runs a
 * plain Fastify route that answers a fixed JSON object (a child process of its own) for
 * `--fixed-duration` s, whose req/s, printed with the round, shows how busy the machine was, then
 * `--clients` publish the new pages at once, one page each at a time.
 *
 * Printed per round and as the median of rounds: the deliveries received, the delay's p50, p99 and
 * max (0 when the delivery arrived before the client had read the publish answer), the time from the
 * first publish to the last receipt, the server's RSS at the end and its CPU time per publish (the
 * publish and its delivery), on PostgreSQL also its database sessions' CPU time per publish.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CLI_ACTOR } from '../src/auth/actor.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { backendFromArgs, portArg, serverRun } from './fixtures/backend.ts';
import { measureFixed } from './fixtures/fixed-server.ts';
import { arg } from './fixtures/load.ts';
import { RoundTable, sampled } from './fixtures/operations.ts';
import { startQuire } from './fixtures/quire-server.ts';

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

/** A receiver of deliveries: the time each page's first one arrived, and a wait for a set of pages. */
async function receiver(port: number) {
  const received = new Map<number, number>();
  let expected = new Set<number>();
  let allReceived: () => void = () => undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: number } };
      if (!received.has(data.id)) received.set(data.id, at);
      res.writeHead(204).end();
      if ([...expected].every((id) => received.has(id))) allReceived();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    /** Settles when a delivery for each of `ids` has arrived, or after `timeoutMs`. */
    all(ids: readonly number[], timeoutMs: number): Promise<void> {
      expected = new Set(ids);
      return new Promise<void>((resolve) => {
        const timeout = setTimeout(resolve, timeoutMs);
        allReceived = () => {
          clearTimeout(timeout);
          resolve();
        };
        if (ids.every((id) => received.has(id))) allReceived();
      });
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A project with a version, a section and a key, made directly in the database the server uses. */
async function project(databaseUrl: string, schema: string | undefined) {
  const deps = createDeps(
    loadConfig({ DATABASE_URL: databaseUrl, QUIRE_BOOTSTRAP: 'false', LOG_LEVEL: 'silent' }),
    schema !== undefined ? { schema } : {},
  );
  try {
    await upgradeDatabase(deps.database, schema);
    const made = await deps.projects.create({ actor: CLI_ACTOR, ipAddress: null }, { name: 'Bench' });
    const ctx = await deps.projects.contextFor(CLI_ACTOR, { projectId: made.id });
    const version = await deps.versions.create(ctx, { name: 'v1', slug: 'v1', published: true });
    const section = await deps.documentation.create(ctx, version.id, { title: 'Guides', published: true });
    const { key } = await deps.keys.create(ctx, { permissions: 'all', versions: 'all' });
    return { key, sectionId: section.id };
  } finally {
    await deps.close();
  }
}

async function main(): Promise<void> {
  const events = Number(arg('events', '1000'));
  const clients = Math.max(1, Number(arg('clients', '4')));
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const fixedSeconds = Number(arg('fixed-duration', '2'));
  const port = await portArg('port');
  const fixedPort = await portArg('fixed-port');
  const backend = backendFromArgs('webhooks');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-webhooks-'));
  const databaseUrl = backend.pgUrl ?? `sqlite:${path.join(dir, 'webhooks.db')}`;
  const servers = serverRun(backend, [dir]);
  const hooks = await receiver(Number(arg('receiver-port', '0')));
  try {
    const { key, sectionId } = await project(databaseUrl, backend.schema);
    const { pid, fixed, sessions } = await startQuire(servers, backend, {
      databaseUrl,
      port,
      fixedPort,
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') },
    });
    const base = `http://127.0.0.1:${port}/api/v1`;
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
      return JSON.parse(text) as { id: number };
    };
    /** `work` for each item, by `clients` at once, one item each at a time. */
    const byClients = async <T>(items: readonly T[], work: (item: T) => Promise<void>) => {
      const queue = [...items];
      await Promise.all(
        Array.from({ length: clients }, async () => {
          for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
        }),
      );
    };
    await call('POST', '/webhooks', {
      url: `http://127.0.0.1:${hooks.port}/hook`,
      events: ['page.published'],
    });
    process.stdout.write(
      `${backend.label}${backend.schema !== undefined ? ` (schema ${backend.schema})` : ''}: ` +
        `${events} publishes a round by ${clients} clients, one webhook on a local receiver\n`,
    );
    const table = new RoundTable(
      {
        delivered: { title: 'delivered', digits: 0 },
        p50Ms: { title: 'delay p50 ms', digits: 1 },
        p99Ms: { title: 'delay p99 ms', digits: 1 },
        maxMs: { title: 'delay max ms', digits: 1 },
        totalS: { title: 'first publish → last receipt s', digits: 2 },
        serverRssMb: { title: 'server RSS MB', digits: 0 },
        cpuUs: { title: 'server CPU µs/publish', digits: 0 },
        databaseCpuUs: { title: 'database CPU µs/publish', digits: 0 },
      },
      (text) => process.stdout.write(text),
    );
    for (let round = 1; round <= rounds; round++) {
      const ids: number[] = [];
      await byClients(
        Array.from({ length: events }, (_, i) => i),
        async (i) => {
          const page = await call('POST', `/documentation/${sectionId}/page`, {
            title: `Page ${round}-${i}`,
            content: `Body ${i}`,
          });
          ids.push(page.id);
        },
      );
      const reference = await measureFixed(fixed, fixedSeconds);
      const answered = new Map<number, number>();
      const run = await sampled(
        pid,
        async () => {
          await byClients(ids, async (id) => {
            await call('PUT', `/page/${id}/publish`);
            answered.set(id, performance.now());
          });
          await hooks.all(ids, 120_000);
        },
        sessions,
      );
      const delivered = ids.filter((id) => hooks.received.has(id));
      const delays = delivered
        .map((id) => Math.max(0, (hooks.received.get(id) ?? 0) - (answered.get(id) ?? 0)))
        .sort((a, b) => a - b);
      table.round(round, rounds, reference, [
        [
          `${events} publishes by ${clients} clients`,
          {
            delivered: delivered.length,
            p50Ms: percentile(delays, 50),
            p99Ms: percentile(delays, 99),
            maxMs: percentile(delays, 100),
            totalS: run.ms / 1000,
            serverRssMb: run.rssMb,
            cpuUs: (run.cpuMs * 1000) / events,
            databaseCpuUs: run.databaseCpuMs === null ? undefined : (run.databaseCpuMs * 1000) / events,
          },
        ],
      ]);
    }
    table.medians();
  } finally {
    hooks.close();
    await servers.cleanUp();
  }
}

await main();
