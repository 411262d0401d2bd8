import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBalancer } from './balancer.ts';

/**
 * compose.yaml's topology without containers: two Quire instances on one PostgreSQL database and one
 * Redis, behind the balancer. For a machine with no container runtime (CI, a laptop); the smoke test
 * drives it end to end. Prints one JSON line when every part is ready:
 * `{"balancer": PORT, "instances": [PORT, PORT], "pids": [...], "key": "qk_…" | null}` (the demo
 * project's key when this start made it). SIGTERM or SIGINT stops the instances (each drains), then
 * the balancer.
 *
 * `topology --database-url postgres://… --redis-url redis://… --port P --instance-ports P1,P2`
 */
const BIN = fileURLToPath(new URL('../../bin/quire', import.meta.url));
const READY_WITHIN_MS = 60_000;

function startInstance(port: number, env: NodeJS.ProcessEnv, onKey: (key: string) => void): ChildProcess {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let banner = '';
  child.stdout.on('data', (chunk: Buffer) => {
    banner += chunk.toString();
    const key = /\bqk_[A-Za-z0-9_-]{43}\b/.exec(banner);
    if (key) onKey(key[0]);
    if (banner.length > 8192) banner = banner.slice(-4096);
  });
  // The instances' logs, labelled, on this process's standard error.
  const label = `[quire:${port}] `;
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => {
      const lines = chunk.toString().split('\n').filter(Boolean);
      for (const line of lines) process.stderr.write(`${label}${line}\n`);
    });
  }
  return child;
}

async function ready(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the instance on port ${port} exited (${child.exitCode})`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the instance on port ${port} was not ready within ${READY_WITHIN_MS / 1000} s`);
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      'redis-url': { type: 'string' },
      port: { type: 'string' },
      'instance-ports': { type: 'string' },
    },
  });
  const ports = (values['instance-ports'] ?? '').split(',').map(Number);
  const port = Number(values.port);
  if (
    !values['database-url']?.startsWith('postgres') ||
    !values['redis-url']?.startsWith('redis') ||
    !Number.isInteger(port) ||
    ports.length < 2 ||
    !ports.every((p) => Number.isInteger(p) && p > 0)
  ) {
    process.stderr.write(
      'usage: topology --database-url postgres://… --redis-url redis://… --port PORT --instance-ports P1,P2[,…]\n',
    );
    process.exit(2);
  }
  // Not the service's configuration: the environment this script passes on to the instances it starts.
  // eslint-disable-next-line no-restricted-properties
  const inherited = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    DATABASE_URL: values['database-url'],
    REDIS_URL: values['redis-url'],
    // The balancer is the one proxy in front: its X-Forwarded-For names the client.
    TRUST_PROXY: '127.0.0.1',
    // Every instance must sign webhooks with the secrets the others stored: one key for all.
    WEBHOOK_SECRET_KEY: inherited.WEBHOOK_SECRET_KEY ?? randomBytes(32).toString('base64'),
  };
  let key: string | null = null;
  const children = ports.map((p) => startInstance(p, env, (k) => (key = k)));
  const stopAll = async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(children.map(stopped));
  };
  try {
    await Promise.all(ports.map((p, i) => ready(p, children[i]!)));
  } catch (error) {
    process.stderr.write(`topology: ${error instanceof Error ? error.message : String(error)}\n`);
    await stopAll();
    process.exit(1);
  }
  // The instance that made the demo project prints its key right after it starts listening.
  for (let waited = 0; key === null && waited < 1_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const balancer = await startBalancer({
    host: '127.0.0.1',
    port,
    upstreams: ports.map((p) => new URL(`http://127.0.0.1:${p}`)),
    healthIntervalMs: 500,
  });
  process.stdout.write(
    `${JSON.stringify({ balancer: balancer.port, instances: ports, pids: children.map((c) => c.pid), key })}\n`,
  );
  const stop = () =>
    void stopAll()
      .then(() => balancer.close())
      .then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

await main();
