/**
 * Webhook delivery delay: from a change's commit (the answer to `PUT /page/{id}/publish`) to its
 * receipt by a webhook receiver, for `--events` publishes, on SQLite or, with
 * `--database-url postgres://…`, on PostgreSQL in a schema of its own (dropped afterwards).
 *
 *   node --import tsx bench/webhooks.bench.ts [--events 1000] [--clients 4] [--port P]
 *        [--receiver-port P] [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *
 * `--database-url URL` is the older spelling of `--pg URL`. `--redis` keeps the rate-limit counters in
 * Redis under a key prefix of this run's own, deleted at the end. Ports not given are chosen by the
 * system.
 *
 * The server (with its dispatcher, as `bin/quire serve` starts it) listens on `--port`, a receiver
 * answering 204 on `--receiver-port`, both on 127.0.0.1 in this process. `--clients` publish at
 * once, one page each at a time. Printed: the delay's p50, p99 and max (0 when the delivery arrived
 * before the client had read the publish answer), and the time from the first publish to the last
 * receipt.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { CLI_ACTOR } from '../src/auth/actor.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { backendFromArgs } from './fixtures/backend.ts';
import { arg } from './fixtures/load.ts';

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

async function main(): Promise<void> {
  const events = Number(arg('events', '1000'));
  const clients = Math.max(1, Number(arg('clients', '4')));
  const backend = backendFromArgs('webhooks');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-webhooks-'));
  const databaseUrl = backend.pgUrl ?? `sqlite:${path.join(dir, 'webhooks.db')}`;
  const { schema } = backend;

  // Receipt times by page id, and a promise that settles when every one has arrived.
  const received = new Map<number, number>();
  let allReceived: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allReceived = resolve));
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: number } };
      if (!received.has(data.id)) received.set(data.id, at);
      res.writeHead(204).end();
      if (received.size === events) allReceived();
    });
  });
  await new Promise<void>((resolve) =>
    receiver.listen(Number(arg('receiver-port', '0')), '127.0.0.1', resolve),
  );
  const receiverPort = (receiver.address() as AddressInfo).port;

  const deps = createDeps(
    loadConfig({
      DATABASE_URL: databaseUrl,
      ...(backend.redisUrl !== null ? { REDIS_URL: backend.redisUrl } : {}),
      QUIRE_BOOTSTRAP: 'false',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_SCALE: '1000000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    }),
    { redisPrefix: backend.redisPrefix, ...(schema !== undefined ? { schema } : {}) },
  );
  await upgradeDatabase(deps.database, schema);
  const app = await buildApp(deps, { logger: false });
  try {
    const project = await deps.projects.create({ actor: CLI_ACTOR, ipAddress: null }, { name: 'Bench' });
    const ctx = await deps.projects.contextFor(CLI_ACTOR, { projectId: project.id });
    const version = await deps.versions.create(ctx, { name: 'v1', slug: 'v1', published: true });
    const section = await deps.documentation.create(ctx, version.id, { title: 'Guides', published: true });
    const { key } = await deps.keys.create(ctx, { permissions: 'all', versions: 'all' });
    await app.listen({ host: '127.0.0.1', port: Number(arg('port', '0')) });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
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
    await call('POST', '/webhooks', {
      url: `http://127.0.0.1:${receiverPort}/hook`,
      events: ['page.published'],
    });
    const ids: number[] = [];
    for (let i = 0; i < events; i++) {
      ids.push(
        (
          await call('POST', `/documentation/${section.id}/page`, {
            title: `Page ${i}`,
            content: `Body ${i}`,
          })
        ).id,
      );
    }
    deps.webhookDispatcher.start();

    const answered = new Map<number, number>();
    const queue = [...ids];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          await call('PUT', `/page/${id}/publish`);
          answered.set(id, performance.now());
        }
      }),
    );
    const timeout = setTimeout(() => allReceived(), 120_000);
    await done;
    clearTimeout(timeout);
    const total = performance.now() - started;
    const delays = ids
      .filter((id) => received.has(id))
      .map((id) => Math.max(0, received.get(id)! - answered.get(id)!))
      .sort((a, b) => a - b);
    process.stdout.write(
      `${backend.label}: ${events} publishes by ${clients} clients, ${received.size} delivered; ` +
        `commit → receipt p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms, ` +
        `max ${percentile(delays, 100).toFixed(1)} ms; first publish → last receipt ${(total / 1000).toFixed(2)} s\n`,
    );
  } finally {
    await app.close();
    await deps.close();
    await backend.cleanUp();
    receiver.closeAllConnections();
    receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
