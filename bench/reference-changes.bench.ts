/**
 * The API change report for two 5 MiB definitions (extensions.md §8, decision 0033): how long it takes
 * and whether the server's event loop stalls meanwhile. A Quire server runs in a child process on a
 * fresh SQLite file (or PostgreSQL with `--pg`); each round uploads a 5 MiB definition, then a changed
 * copy of it as the draft (the upload answers with the report), then asks
 * `GET /reference/{id}/changes` (the report alone: both definitions read, parsed and compared). A probe
 * in a thread of its own asks `/healthz` every 5 ms during each job and keeps its worst latency, and
 * the server's own longest event-loop delay during the job is read from `/metrics`
 * (`nodejs_eventloop_lag_max_seconds`, which each read starts again). A first row with no job (3 s
 * idle) shows both figures' floor on the machine at hand: read the others against it.
 *
 *   node --import tsx bench/reference-changes.bench.ts [--rounds 3] [--size-mib 5] [--port P]
 *        [--fixed-port P] [--data $TMPDIR/quire-bench-changes] [--pg [url]] [--redis [url]]
 *        [--in-process]
 *
 * `--in-process` runs the app in this process instead (SQLite, requests through `app.inject`, the
 * bodies serialised before each job) and reports its own longest event-loop delay during each job:
 * the work the event loop does, without a client, a probe or another process competing for it.
 *
 * The changed copy: every 20th path removed, every 10th operation with a new required query
 * parameter, every 7th schema without its `tags` property, every 5th `expand` enum without `tags`.
 * Goal: the report (the GET) in under 2 s, and `/healthz` never slower than 50 ms during either job.
 */
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backendFromArgs, median, portArg, prepareSchema, serverRun } from './fixtures/backend.ts';
import { bigDefinition } from './fixtures/big-inputs.ts';
import { startHealthzProbe } from './fixtures/healthz-probe.ts';
import { loopDelayDuring, startInProcess } from './fixtures/in-process-quire.ts';
import { arg } from './fixtures/load.ts';
import { startQuire } from './fixtures/quire-server.ts';

const KEY = `qk_${'c'.repeat(40)}`;
const MiB = 1024 * 1024;

interface Observed {
  status: number;
  lagMax: number;
  ms: number;
  worst: number;
  p99: number;
  probes: number;
  breaking: number;
  nonBreaking: number;
}

type Json = Record<string, unknown>;

/** The definition with the changes the header lists, under the same title. */
function changedCopy(original: Json): Json {
  const copy = structuredClone(original);
  const paths = copy.paths as Record<string, Json>;
  Object.keys(paths).forEach((key, i) => {
    if (i % 20 === 19) {
      delete paths[key];
      return;
    }
    const get = paths[key]?.get as { parameters: Json[] };
    if (i % 10 === 3)
      get.parameters.push({ name: 'since', in: 'query', required: true, schema: { type: 'string' } });
    const expand = get.parameters[1]?.schema as { enum: string[] } | undefined;
    if (i % 5 === 2 && expand) expand.enum = ['owner'];
  });
  const schemas = (copy.components as { schemas: Record<string, { properties?: Json }> }).schemas;
  Object.values(schemas).forEach((schema, i) => {
    if (i % 7 === 1 && schema.properties) delete schema.properties.tags;
  });
  return copy;
}

/** The server's longest event-loop delay since the last read, in ms (prom-client resets it on a read). */
async function lagMax(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const found = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  return found ? Number(found[1]) * 1000 : Number.NaN;
}

async function observe(base: string, job: () => Promise<Response>): Promise<Observed> {
  await lagMax(base);
  const probe = await startHealthzProbe(base);
  const started = performance.now();
  const res = await job();
  const body = (await res.json()) as { changes?: Json } & Json;
  const ms = performance.now() - started;
  const lag = await lagMax(base);
  const figures = await probe.stop();
  const report = (body.changes ?? body) as { breaking?: unknown[]; nonBreaking?: unknown[] };
  return {
    status: res.status,
    lagMax: lag,
    ms,
    ...figures,
    breaking: report.breaking?.length ?? -1,
    nonBreaking: report.nonBreaking?.length ?? -1,
  };
}

const line = (name: string, o: Observed): string =>
  `  ${name.padEnd(34)} ${String(o.status).padStart(3)}  ${o.ms.toFixed(0).padStart(6)} ms  ` +
  `loop lag max ${o.lagMax.toFixed(1).padStart(6)} ms  ` +
  `/healthz worst ${o.worst.toFixed(1).padStart(6)} ms  p99 ${o.p99.toFixed(1).padStart(5)} ms  ` +
  `${String(o.probes).padStart(4)} probes  ${o.breaking} breaking, ${o.nonBreaking} non-breaking\n`;

async function inProcess(rounds: number, size: number, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const quire = await startInProcess(path.join(dir, 'in-process.db'), KEY);
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  const post = (payload: string, publish: boolean) =>
    quire.app.inject({
      method: 'POST',
      url: `/api/v1/version/latest/reference?publish=${publish}`,
      headers,
      payload,
    });
  try {
    process.stdout.write(`SQLite, in process: two definitions of ${(size / MiB).toFixed(1)} MiB\n`);
    const reports: number[] = [];
    const delays: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const original = bigDefinition(size, `Changing API ${round}`);
      const [before, after] = [original, changedCopy(original)].map((d) => JSON.stringify(d, null, 2));
      // The first upload makes no report: its figures are the upload's own, for comparison.
      const first = await loopDelayDuring(() => post(before ?? '', true));
      const { id } = first.value.json<{ id: number }>();
      const draft = await loopDelayDuring(() => post(after ?? '', false));
      const read = await loopDelayDuring(() =>
        quire.app.inject({
          method: 'GET',
          url: `/api/v1/reference/${id}/changes`,
          headers: { 'x-api-key': KEY },
        }),
      );
      const count = read.value.json<{ breaking: unknown[] }>().breaking.length;
      process.stdout.write(
        `round ${round}/${rounds}: new upload ${first.ms.toFixed(0)} ms, longest loop delay ` +
          `${first.maxMs.toFixed(1)} ms; draft upload ${draft.value.statusCode} ${draft.ms.toFixed(0)} ms, ` +
          `longest loop delay ${draft.maxMs.toFixed(1)} ms; report ${read.value.statusCode} ` +
          `${read.ms.toFixed(0)} ms, longest loop delay ${read.maxMs.toFixed(1)} ms (${count} breaking)\n`,
      );
      reports.push(read.ms);
      delays.push(Math.max(draft.maxMs, read.maxMs));
    }
    const [reportMs, delayMs] = [median(reports), median(delays)];
    const met = reportMs < 2000 && delayMs < 50;
    process.stdout.write(
      `\ngoal (report < 2 s, longest loop delay < 50 ms): ${met ? 'met' : 'NOT met'} ` +
        `(median report ${reportMs.toFixed(0)} ms, median longest delay ${delayMs.toFixed(1)} ms)\n`,
    );
  } finally {
    await quire.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const port = await portArg('port');
  const fixedPort = await portArg('fixed-port');
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const size = Number(arg('size-mib', '5')) * MiB;
  const dir = arg('data', path.join(os.tmpdir(), 'quire-bench-changes'));
  if (process.argv.includes('--in-process')) return inProcess(rounds, size, dir);
  const backend = backendFromArgs('changes');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const servers = serverRun(backend, [dir]);
  const base = `http://127.0.0.1:${port}`;
  const api = (route: string, init: RequestInit = {}) =>
    fetch(`${base}/api/v1${route}`, {
      ...init,
      headers: { 'x-api-key': KEY, ...(init.headers as Record<string, string> | undefined) },
    });
  const upload = (document: Json, publish: boolean) => () =>
    api(`/version/latest/reference?publish=${publish}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(document, null, 2),
    });
  try {
    if (backend.pgUrl !== null && backend.schema !== undefined)
      await prepareSchema(backend.pgUrl, backend.schema);
    await startQuire(servers, backend, {
      databaseUrl: `sqlite:${path.join(dir, 'quire.db')}`,
      port,
      fixedPort,
      env: {
        QUIRE_BOOTSTRAP: 'true',
        QUIRE_BOOTSTRAP_KEY: KEY,
      },
    });
    process.stdout.write(`${backend.label}: two definitions of ${(size / MiB).toFixed(1)} MiB\n`);
    const reports: number[] = [];
    const worst: number[] = [];
    const lags: number[] = [];
    const idle = () =>
      new Promise<Response>((resolve) =>
        setTimeout(() => resolve(new Response('{}', { status: 200 })), 3000),
      );
    for (let round = 1; round <= rounds; round++) {
      const floor = await observe(base, idle);
      // A title of each round's own: every report is a first one.
      const original = bigDefinition(size, `Changing API ${round}`);
      const first = await upload(original, true)();
      const { id } = (await first.json()) as { id: number };
      if (first.status !== 201) throw new Error(`upload answered ${first.status}`);
      const draft = await observe(base, upload(changedCopy(original), false));
      const read = await observe(base, () => api(`/reference/${id}/changes`));
      process.stdout.write(`round ${round}/${rounds}\n`);
      process.stdout.write(line('nothing (3 s idle)', floor));
      process.stdout.write(line('draft upload, with its report', draft));
      process.stdout.write(line('GET /reference/{id}/changes', read));
      reports.push(read.ms);
      worst.push(Math.max(draft.worst, read.worst));
      lags.push(Math.max(draft.lagMax, read.lagMax));
    }
    const reportMs = median(reports);
    const worstMs = median(worst);
    const lagMs = median(lags);
    const met = reportMs < 2000 && worstMs < 50;
    process.stdout.write(
      `\ngoal (report < 2 s, /healthz worst < 50 ms): ${met ? 'met' : 'NOT met'} ` +
        `(median report ${reportMs.toFixed(0)} ms, median worst probe ${worstMs.toFixed(1)} ms, ` +
        `median longest loop lag ${lagMs.toFixed(1)} ms)\n`,
    );
  } finally {
    await servers.cleanUp();
  }
}

await main();
