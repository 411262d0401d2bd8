/**
 * Does heavy work stall the server? A Quire server runs in a child process on a fresh SQLite file; while
 * it takes a 5 MiB OpenAPI upload, an invalid 5 MiB upload, a conversion of that definition to YAML and
 * the first HTML render of a 3 MB page, a probe asks `/healthz` every 5 ms and keeps its worst latency.
 * The server's resident memory is sampled every 10 ms from /proc, so the peak above the idle figure is
 * what each job costs.
 *
 *   node --import tsx bench/event-loop.bench.ts [--port P] [--rounds 3] [--data $TMPDIR/quire-bench-loop]
 *        [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *
 * The port, when not given, is chosen by the system. `--pg` runs the server on PostgreSQL in a schema
 * of this run's own, `--redis` with its rate-limit counters in Redis under a key prefix of its own;
 * both are removed at the end.
 *
 * Goals: `/healthz` worst latency under 50 ms during the valid and the invalid upload and the render;
 * the valid 5 MiB upload answers in under 1.5 s and raises the server's RSS by less than 150 MB. The
 * first row, with no job, shows the probe's floor on the machine at hand; read the others against it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { bigDefinition, bigPage } from './fixtures/big-inputs.ts';
import { backendFromArgs, portArg, prepareSchema } from './fixtures/backend.ts';
import { waitFor } from './fixtures/wait.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KEY = `qk_${'b'.repeat(40)}`;
const MiB = 1024 * 1024;

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return (i >= 0 ? process.argv[i + 1] : undefined) ?? fallback;
};

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return Number(kb ?? 0) * 1024;
}

interface Observation {
  ms: number;
  status: number;
  worstHealthMs: number;
  p99HealthMs: number;
  probes: number;
  rssAboveIdleMb: number;
}

/**
 * The probe runs in a thread of its own, so that what this process does to send a job (a 5 MiB body
 * to write, an answer to read) never delays a probe: its figures are the server's alone.
 */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
let stop = false;
const latencies = [];
parentPort.on('message', () => { stop = true; });
(async () => {
  while (!stop) {
    const started = performance.now();
    const res = await fetch(workerData.url);
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 5));
  }
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  parentPort.postMessage({ worst: at(1), p99: at(0.99), probes: latencies.length });
})();
`;

/** Runs `job` while probing /healthz and sampling the server's RSS. */
async function observe(base: string, pid: number, job: () => Promise<Response>): Promise<Observation> {
  const idle = rssBytes(pid);
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid));
  }, 10);
  const probe = new Worker(PROBE, { eval: true, workerData: { url: `${base}/healthz` } });
  const probed = new Promise<{ worst: number; p99: number; probes: number }>((resolve) =>
    probe.once('message', resolve),
  );
  // The probe's first answers arrive before the job starts.
  await new Promise((r) => setTimeout(r, 100));
  const started = performance.now();
  const res = await job();
  await res.arrayBuffer();
  const ms = performance.now() - started;
  probe.postMessage('stop');
  const { worst, p99, probes } = await probed;
  await probe.terminate();
  clearInterval(sampler);
  peak = Math.max(peak, rssBytes(pid));
  return {
    ms,
    status: res.status,
    worstHealthMs: worst,
    p99HealthMs: p99,
    probes,
    rssAboveIdleMb: (peak - idle) / MiB,
  };
}

async function main(): Promise<void> {
  const port = await portArg('port');
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const dir = arg('data', path.join(os.tmpdir(), 'quire-bench-loop'));
  const backend = backendFromArgs('loop');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // The server makes the demo project in an empty database; on PostgreSQL, in a schema of this run's.
  if (backend.pgUrl !== null && backend.schema !== undefined)
    await prepareSchema(backend.pgUrl, backend.schema);

  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...backend.serverEnv(`sqlite:${path.join(dir, 'quire.db')}`),
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_SCALE: '1000000',
      QUIRE_BOOTSTRAP_KEY: KEY,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('the server did not start');
  const base = `http://127.0.0.1:${port}`;
  const api = (route: string, init: RequestInit = {}) =>
    fetch(`${base}/api/v1${route}`, {
      ...init,
      headers: { 'x-api-key': KEY, ...(init.headers as Record<string, string> | undefined) },
    });
  try {
    await waitFor(`${base}/readyz`, 120_000);
    process.stdout.write(`${backend.label}${backend.schema ? ` (schema ${backend.schema})` : ''}\n`);
    const versions = (await (await api('/version')).json()) as Array<{ id: number }>;
    const sections = (await (await api(`/version/${versions[0]?.id ?? 0}/documentation`)).json()) as Array<{
      id: number;
    }>;
    const sectionId = sections[0]?.id;
    if (sectionId === undefined) throw new Error('the demo project has no section');

    const valid = Buffer.from(JSON.stringify(bigDefinition(5 * MiB), null, 2));
    const broken = bigDefinition(5 * MiB, 'Broken API');
    // An error at the end of the document: the validator reads all of it before it finds the problem.
    (broken.paths as Record<string, unknown>)['/broken'] = { get: { responses: { '200': {} } } };
    const invalid = Buffer.from(JSON.stringify(broken, null, 2));
    const page = bigPage(3_000_000);
    const upload = (body: Buffer) => () =>
      api('/version/latest/reference', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });

    const jobs: Array<[string, () => Promise<Response>]> = [
      [`valid upload (${(valid.length / MiB).toFixed(1)} MiB)`, upload(valid)],
      [`invalid upload (${(invalid.length / MiB).toFixed(1)} MiB)`, upload(invalid)],
    ];
    const results = new Map<string, Observation[]>();
    for (let round = 0; round < rounds; round++) {
      // A fresh page and a fresh reference each round, so every render and conversion is a first one.
      const created = (await (
        await api(`/documentation/${sectionId}/page`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Big page ${round}`, content: `${page}\n\nRound ${round}.` }),
        })
      ).json()) as { id: number };
      const toConvert = Buffer.from(
        JSON.stringify(bigDefinition(5 * MiB, `Converted API ${round}`), null, 2),
      );
      const uploaded = await upload(toConvert)();
      const { id: convertedId } = (await uploaded.json()) as { id: number };
      const roundJobs: Array<[string, () => Promise<Response>]> = [
        // No job at all: the probe's own floor on this machine, for the figures below to be read against.
        [
          'nothing (3 s idle)',
          () =>
            new Promise((resolve) => setTimeout(() => resolve(new Response(null, { status: 200 })), 3000)),
        ],
        ...jobs,
        [
          `definition as YAML (${(valid.length / MiB).toFixed(1)} MiB JSON)`,
          () => api(`/reference/${convertedId}/definition?format=yaml`),
        ],
        [
          `first html render (${(page.length / 1e6).toFixed(1)} MB page)`,
          () => api(`/page/${created.id}?format=html`),
        ],
      ];
      for (const [name, job] of roundJobs) {
        const list = results.get(name) ?? [];
        list.push(await observe(base, pid, job));
        results.set(name, list);
      }
    }

    process.stdout.write(
      `\nmedian of ${rounds} round(s); /healthz probed every 5 ms during each job\n\n` +
        '| job | status | job ms | /healthz worst ms | /healthz p99 ms | probes | RSS above idle MB |\n' +
        '|---|---:|---:|---:|---:|---:|---:|\n',
    );
    for (const [name, list] of results) {
      const median = (pick: (o: Observation) => number) => {
        const sorted = list.map(pick).sort((a, b) => a - b);
        return sorted[Math.floor(sorted.length / 2)] ?? NaN;
      };
      const statuses = [...new Set(list.map((o) => o.status))].join('/');
      process.stdout.write(
        `| ${name} | ${statuses} | ${median((o) => o.ms).toFixed(0)} | ${median((o) => o.worstHealthMs).toFixed(1)} | ` +
          `${median((o) => o.p99HealthMs).toFixed(1)} | ` +
          `${median((o) => o.probes)} | ${median((o) => o.rssAboveIdleMb).toFixed(0)} |\n`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    await backend.cleanUp();
  }
}

await main();
