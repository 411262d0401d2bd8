/**
 * Does heavy work stall the server? A Quire server runs in a child process on a fresh SQLite file; while
 * it takes a 5 MiB OpenAPI upload, an invalid 5 MiB upload, a conversion of that definition to YAML and
 * the first HTML render of a 3 MB page (rendering ahead is off, so the read renders), a probe asks `/healthz` every 5 ms and keeps its worst latency.
 * The server's resident memory is read every 10 ms from /proc, so the peak above the figure at the
 * job's start is what each job costs; its CPU time during the job is read from /proc too.
 *
 *   node --import tsx bench/event-loop.bench.ts [--rounds 3] [--data $TMPDIR/quire-bench-loop]
 *        [--port P] [--fixed-port P] [--fixed-duration 2]
 *        [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *
 * Ports not given are chosen by the system. `--pg` runs the server on PostgreSQL in a schema of this
 * run's own, `--redis` with its rate-limit counters in Redis under a key prefix of its own; both are
 * removed at the end, as is `--data`.
 *
 * Each round starts with a `--fixed-duration` s run of a plain Fastify route that answers a fixed JSON
 * object (a child process of its own): its req/s, printed with the round, shows how busy the machine
 * was. Printed per round and as the median of rounds, per job: its status and time, the probe's worst
 * and p99 latency and its number of probes, the growth of the server's RSS, its RSS at the end and its
 * CPU time, the probes' requests included (on PostgreSQL also its database sessions' CPU time).
 *
 * Goals: `/healthz` worst latency under 50 ms during the valid and the invalid upload and the render;
 * the valid 5 MiB upload answers in under 1.5 s and raises the server's RSS by less than 150 MB. The
 * first row, with no job, shows the probe's floor on the machine at hand; read the others against it.
 */
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bigDefinition, bigPage } from './fixtures/big-inputs.ts';
import { backendFromArgs, portArg, prepareSchema, serverRun } from './fixtures/backend.ts';
import { measureFixed } from './fixtures/fixed-server.ts';
import { startHealthzProbe } from './fixtures/healthz-probe.ts';
import { arg } from './fixtures/load.ts';
import { RoundTable, SERVER_COLUMNS, sampled, serverFigures, type Row } from './fixtures/operations.ts';
import { startQuire } from './fixtures/quire-server.ts';

const KEY = `qk_${'b'.repeat(40)}`;
const MiB = 1024 * 1024;

/** Runs `job` while probing /healthz and sampling the server's CPU time and RSS. */
async function observe(
  base: string,
  pid: number,
  job: () => Promise<Response>,
  databaseCpuMs?: () => Promise<number>,
) {
  const probe = await startHealthzProbe(base);
  const run = await sampled(
    pid,
    async () => {
      const res = await job();
      await res.arrayBuffer();
      return res.status;
    },
    databaseCpuMs,
  );
  const { worst, p99, probes } = await probe.stop();
  return {
    status: String(run.value),
    ms: run.ms,
    worstMs: worst,
    p99Ms: p99,
    probes,
    rssGrowthMb: run.rssGrowthMb,
    ...serverFigures(run),
  };
}

async function main(): Promise<void> {
  const port = await portArg('port');
  const fixedPort = await portArg('fixed-port');
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const fixedSeconds = Number(arg('fixed-duration', '2'));
  const dir = arg('data', path.join(os.tmpdir(), 'quire-bench-loop'));
  const backend = backendFromArgs('loop');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const servers = serverRun(backend, [dir]);
  const base = `http://127.0.0.1:${port}`;
  const api = (route: string, init: RequestInit = {}) =>
    fetch(`${base}/api/v1${route}`, {
      ...init,
      headers: { 'x-api-key': KEY, ...(init.headers as Record<string, string> | undefined) },
    });
  try {
    // The server makes the demo project in an empty database; on PostgreSQL, in a schema of this run's.
    if (backend.pgUrl !== null && backend.schema !== undefined)
      await prepareSchema(backend.pgUrl, backend.schema);
    const { pid, fixed, sessions } = await startQuire(servers, backend, {
      databaseUrl: `sqlite:${path.join(dir, 'quire.db')}`,
      port,
      fixedPort,
      env: {
        QUIRE_BOOTSTRAP: 'true',
        QUIRE_BOOTSTRAP_KEY: KEY,
        // The render row measures a read that renders: nothing may have rendered the page ahead.
        RENDER_AHEAD: 'false',
      },
    });
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
        body: new Uint8Array(body),
      });

    const idle = 'nothing (3 s idle)';
    const validName = `valid upload (${(valid.length / MiB).toFixed(1)} MiB)`;
    const invalidName = `invalid upload (${(invalid.length / MiB).toFixed(1)} MiB)`;
    const renderName = `first html render (${(page.length / 1e6).toFixed(1)} MB page)`;
    const table = new RoundTable(
      {
        status: { title: 'status', digits: 0 },
        ms: { title: 'job ms', digits: 0 },
        worstMs: { title: '/healthz worst ms', digits: 1 },
        p99Ms: { title: '/healthz p99 ms', digits: 1 },
        probes: { title: 'probes', digits: 0 },
        rssGrowthMb: { title: 'server RSS growth MB', digits: 0 },
        ...SERVER_COLUMNS,
      },
      (text) => process.stdout.write(text),
    );
    process.stdout.write('/healthz probed every 5 ms during each job\n');
    for (let round = 1; round <= rounds; round++) {
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
      const jobs: Array<[string, () => Promise<Response>]> = [
        // No job at all: the probe's own floor on this machine, for the figures below to be read against.
        [
          idle,
          () =>
            new Promise((resolve) => setTimeout(() => resolve(new Response(null, { status: 200 })), 3000)),
        ],
        [validName, upload(valid)],
        [invalidName, upload(invalid)],
        [
          `definition as YAML (${(valid.length / MiB).toFixed(1)} MiB JSON)`,
          () => api(`/reference/${convertedId}/definition?format=yaml`),
        ],
        [renderName, () => api(`/page/${created.id}?format=html`)],
      ];
      const reference = await measureFixed(fixed, fixedSeconds);
      const rows: Array<Row<keyof Awaited<ReturnType<typeof observe>>>> = [];
      for (const [name, job] of jobs) rows.push([name, await observe(base, pid, job, sessions)]);
      table.round(round, rounds, reference, rows);
    }
    const medians = table.medians();
    const worst = Math.max(
      ...[validName, invalidName, renderName].map((n) => medians.get(n)?.worstMs ?? Infinity),
    );
    const upload5 = medians.get(validName);
    const met = worst < 50 && (upload5?.ms ?? Infinity) < 1500 && (upload5?.rssGrowthMb ?? Infinity) < 150;
    process.stdout.write(
      `\ngoal (/healthz worst < 50 ms during the uploads and the render; the valid upload < 1.5 s, ` +
        `RSS growth < 150 MB): ${met ? 'met' : 'NOT met'} (worst ${worst.toFixed(1)} ms; upload ` +
        `${(upload5?.ms ?? Number.NaN).toFixed(0)} ms, +${(upload5?.rssGrowthMb ?? Number.NaN).toFixed(0)} MB)\n`,
    );
  } finally {
    await servers.cleanUp();
  }
}

await main();
