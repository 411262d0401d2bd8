/**
 * The reader site under load (issue: the reader site; docs/decisions/0027-reader-site.md). One SQLite
 * database holds three public projects seeded with realistic pages (bench/seed-pages.ts): 100 pages,
 * 1,000 pages and 10,000 pages, each version in sections of 100 pages. A `quire serve` child and the
 * fixed Fastify route's child (bench/fixtures/fixed-server.ts) run side by side; every figure is a
 * ratio to something measured in the same run.
 *
 * 1. A cached page: one page of the 1,000-page project under 50 connections, against the fixed route
 *    (requests per second and p99, both measured in this run, alternately, `--rounds` times).
 * 2. The first view of a changed 20 KB page of the 1,000-page project: its contents replaced and
 *    published through the API, then the page asked for once; `--changes` times; p50 and p99.
 * 3. A page of the 10,000-page version against one of the 100-page version: cached pages spread over
 *    each version (requests per second and the server's CPU time per request), alternately.
 *
 * Every request asks as a browser does: `--accept-encoding` (default Chromium's own,
 * `gzip, deflate, br, zstd`) is sent with it, so a kept page goes in the coding the site keeps it in;
 * `--accept-encoding identity` measures the page's own bytes instead. The fixed route sending "the
 * same bytes" sends as many as the page's answer puts on the wire.
 *
 *   node --import tsx bench/site.bench.ts [--port P] [--fixed-port F] [--duration 10] [--rounds 3]
 *     [--changes 200] [--data /tmp/quire-bench-site] [--accept-encoding 'gzip, deflate, br, zstd']
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backendFromArgs, median, portArg, sampleProcess, serverRun } from './fixtures/backend.ts';
import { measureFixed } from './fixtures/fixed-server.ts';
import { arg, autocannon, random, type Result } from './fixtures/load.ts';
import { startQuire } from './fixtures/quire-server.ts';
import { pageAddresses, seedPages, type PageAddress } from './seed-pages.ts';

const CONNECTIONS = 50;
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';
/** What every request of the bench sends (main sets it from `--accept-encoding`). */
const asked: Record<string, string> = { 'accept-encoding': BROWSER_ENCODINGS };
const SIZES = [100, 1_000, 10_000] as const;
const PAGES_PER_SECTION = 100;

interface Seeded {
  databaseUrl: string;
  /** per project (ids 1, 2, 3: the sizes in order): its key and its pages' addresses */
  projects: Array<{ id: number; key: string; pages: PageAddress[] }>;
}

/** Seeds the three projects once per data folder; later runs reuse the file. */
async function seeded(dir: string): Promise<Seeded> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'site.db');
  const meta = `${file}.json`;
  const databaseUrl = `sqlite:${file}`;
  let keys: Array<{ key: string; pageIds: number[] }>;
  if (fs.existsSync(meta)) {
    keys = JSON.parse(fs.readFileSync(meta, 'utf8')) as typeof keys;
  } else {
    for (const stale of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(stale, { force: true });
    keys = [];
    for (const size of SIZES) keys.push(await seedPages(databaseUrl, size, undefined, PAGES_PER_SECTION));
    fs.writeFileSync(meta, JSON.stringify(keys));
  }
  const addresses = await pageAddresses(databaseUrl);
  const projects = keys.map((seed, i) => {
    const ids = new Set(seed.pageIds);
    return { id: i + 1, key: seed.key, pages: addresses.filter((a) => ids.has(a.id)) };
  });
  return { databaseUrl, projects };
}

const sitePath = (projectId: number, page: PageAddress) =>
  `/sites/${projectId}/${page.versionSlug}/${page.documentationSlug}/${page.pageSlug}`;

async function ok(response: Response, what: string): Promise<void> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
}

/** A page of about 20 KB of Darkdown: headings, paragraphs, a list, a code block; `marker` makes it new. */
function twentyKilobytes(marker: number): string {
  const rnd = random(marker);
  const words = 'reader site page change stamp render navigation version section cache answer request'.split(
    ' ',
  );
  const sentence = () =>
    Array.from({ length: 14 }, () => words[Math.floor(rnd() * words.length)] ?? 'page').join(' ') + '.';
  const blocks: string[] = [`Change ${marker}: ${sentence()}`];
  for (let h = 0; blocks.join('\n\n').length < 20_000; h++) {
    blocks.push(`## Part ${h + 1}`, Array.from({ length: 6 }, sentence).join(' '));
    blocks.push(['- ' + sentence(), '- ' + sentence(), '- ' + sentence()].join('\n'));
    if (h % 3 === 0)
      blocks.push(
        '```js\nconst answer = await fetch(`/api/v1/page/${id}`);\nconsole.log(answer.status);\n```',
      );
  }
  return blocks.join('\n\n');
}

/** The first view of a page after its contents changed, `count` times: latencies in ms. */
async function firstViews(
  base: string,
  project: Seeded['projects'][number],
  count: number,
): Promise<number[]> {
  const page = project.pages[Math.floor(project.pages.length / 2)];
  if (!page) throw new Error('no page');
  const headers = { 'x-api-key': project.key, 'content-type': 'application/json' };
  const url = `${base}${sitePath(project.id, page)}`;
  await ok(await fetch(url, { headers: asked }), 'warm-up');
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({ content: twentyKilobytes(i + 1) });
    await ok(await fetch(`${base}/api/v1/page/${page.id}`, { method: 'PUT', headers, body }), 'update');
    await ok(await fetch(`${base}/api/v1/page/${page.id}/publish`, { method: 'PUT', headers }), 'publish');
    const started = performance.now();
    const response = await fetch(url, { headers: asked });
    const text = await response.text();
    times.push(performance.now() - started);
    if (!response.ok || !text.includes(`Change ${i + 1}:`))
      throw new Error(`the change ${i + 1} is not shown`);
  }
  return times;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/** Cached pages spread over a project: requests per second and the server's CPU per request (µs). */
async function spread(
  base: string,
  pid: number,
  project: Seeded['projects'][number],
  duration: number,
): Promise<{ rps: number; p99: number; cpuUs: number }> {
  const rnd = random(project.id);
  const paths = Array.from({ length: 200 }, () => {
    const page = project.pages[Math.floor(rnd() * project.pages.length)];
    if (!page) throw new Error('no page');
    return sitePath(project.id, page);
  });
  for (const p of new Set(paths)) await ok(await fetch(`${base}${p}`, { headers: asked }), 'warm-up');
  let next = 0;
  const before = sampleProcess(pid);
  const result: Result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration,
    headers: asked,
    requests: [{ setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] ?? '/' }) }],
  });
  const after = sampleProcess(pid);
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuUs: ((after.cpuMs - before.cpuMs) * 1000) / Math.max(1, result.requests.total),
  };
}

async function main(): Promise<void> {
  const duration = Number(arg('duration', '10'));
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const changes = Math.max(10, Number(arg('changes', '200')));
  const port = await portArg('port');
  const fixedPort = await portArg('fixed-port');
  const dataDir = arg('data', path.join(os.tmpdir(), 'quire-bench-site'));
  asked['accept-encoding'] = arg('accept-encoding', BROWSER_ENCODINGS);
  const backend = backendFromArgs('site');
  if (backend.pgUrl !== null) throw new Error('the site bench runs on SQLite');
  const run = serverRun(backend);
  try {
    const started = Date.now();
    const data = await seeded(dataDir);
    const [small, middle, large] = data.projects;
    if (!small || !middle || !large) throw new Error('seeding failed');
    process.stdout.write(
      `data: projects of ${data.projects.map((p) => p.pages.length).join(', ')} pages, ` +
        `${PAGES_PER_SECTION} per section, ready in ${Date.now() - started} ms (${os.cpus().length} cores)\n`,
    );
    const quire = await startQuire(run, backend, { databaseUrl: data.databaseUrl, port, fixedPort });
    const base = `http://127.0.0.1:${port}`;

    // 1. A cached page against the fixed route.
    const page = middle.pages[0];
    if (!page) throw new Error('no page');
    const url = `${base}${sitePath(middle.id, page)}`;
    await ok(await fetch(url, { headers: asked }), 'warm-up');
    await autocannon({ url, connections: CONNECTIONS, duration: 2, headers: asked });
    // The bytes on the wire: fetch decodes the body, the length is the encoded one.
    const probe = await fetch(url, { headers: asked });
    await probe.arrayBuffer();
    const coding = probe.headers.get('content-encoding') ?? 'identity';
    const pageBytes = Number(probe.headers.get('content-length'));
    if (!(pageBytes > 0)) throw new Error('the page has no content-length');
    process.stdout.write(
      `the page: ${pageBytes} bytes on the wire (${coding}), asked with '${asked['accept-encoding']}'\n`,
    );
    const fixedHtml = quire.fixed.url.replace(/\/fixed$/, `/fixed-html/${pageBytes}`);
    const cached: Array<{
      ratio: number;
      p99Ratio: number;
      rps: number;
      p99: number;
      fixedRps: number;
      fixedP99: number;
    }> = [];
    const sameBytes: Array<{ ratio: number; p99Ratio: number }> = [];
    for (let round = 0; round < rounds; round++) {
      const fixed = await measureFixed(quire.fixed, duration);
      const site = await autocannon({ url, connections: CONNECTIONS, duration, headers: asked });
      if (site.non2xx > 0 || site.errors > 0)
        throw new Error(`${site.non2xx} non-2xx, ${site.errors} errors`);
      cached.push({
        ratio: site.requests.average / fixed.requestsPerSecond,
        p99Ratio: site.latency.p99 / Math.max(1, fixed.p99Ms),
        rps: site.requests.average,
        p99: site.latency.p99,
        fixedRps: fixed.requestsPerSecond,
        fixedP99: fixed.p99Ms,
      });
      const html = await autocannon({ url: fixedHtml, connections: CONNECTIONS, duration });
      sameBytes.push({
        ratio: site.requests.average / html.requests.average,
        p99Ratio: site.latency.p99 / Math.max(1, html.latency.p99),
      });
      process.stdout.write(
        `round ${round + 1}: fixed route of the same ${pageBytes} bytes of HTML ${html.requests.average.toFixed(0)} req/s p99 ${html.latency.p99} ms\n`,
      );
      const last = cached[cached.length - 1];
      if (last) {
        process.stdout.write(
          `round ${round + 1}: cached page ${last.rps.toFixed(0)} req/s p99 ${last.p99} ms; fixed route ` +
            `${last.fixedRps.toFixed(0)} req/s p99 ${last.fixedP99} ms; ratio ${last.ratio.toFixed(2)}, ` +
            `p99 ratio ${last.p99Ratio.toFixed(2)}\n`,
        );
      }
    }

    // 2. The first view of a changed 20 KB page.
    const views = await firstViews(base, middle, changes);

    // 3. A page of the 10,000-page version against one of the 100-page version, alternately.
    const smallRuns: Array<{ rps: number; p99: number; cpuUs: number }> = [];
    const largeRuns: Array<{ rps: number; p99: number; cpuUs: number }> = [];
    for (let round = 0; round < rounds; round++) {
      smallRuns.push(await spread(base, quire.pid, small, duration));
      largeRuns.push(await spread(base, quire.pid, large, duration));
    }
    const smallViews = await firstViews(base, small, Math.ceil(changes / 4));
    const largeViews = await firstViews(base, large, Math.ceil(changes / 4));

    const m = (values: number[]) => median(values);
    process.stdout.write(
      [
        '',
        `cached page / fixed route, medians of ${rounds} rounds of ${duration} s:`,
        `  throughput ratio ${m(cached.map((c) => c.ratio)).toFixed(2)} (goal >= 0.5), ` +
          `p99 ratio ${m(cached.map((c) => c.p99Ratio)).toFixed(2)} (goal <= 2)`,
        `cached page / a fixed route sending the same ${pageBytes} bytes (the page's, ${coding}), medians:`,
        `  throughput ratio ${m(sameBytes.map((c) => c.ratio)).toFixed(2)}, p99 ratio ${m(sameBytes.map((c) => c.p99Ratio)).toFixed(2)}`,
        `first view of a changed 20 KB page, 1,000-page project, ${views.length} changes:`,
        `  p50 ${percentile(views, 50).toFixed(1)} ms, p99 ${percentile(views, 99).toFixed(1)} ms (goal p99 < 50 ms)`,
        `cached pages of the 10,000-page version / of the 100-page version, medians of ${rounds} rounds:`,
        `  throughput ${m(largeRuns.map((r) => r.rps)).toFixed(0)} / ${m(smallRuns.map((r) => r.rps)).toFixed(0)} req/s ` +
          `(ratio ${(m(largeRuns.map((r) => r.rps)) / m(smallRuns.map((r) => r.rps))).toFixed(3)}), ` +
          `server CPU ${m(largeRuns.map((r) => r.cpuUs)).toFixed(0)} / ${m(smallRuns.map((r) => r.cpuUs)).toFixed(0)} µs per request ` +
          `(ratio ${(m(largeRuns.map((r) => r.cpuUs)) / m(smallRuns.map((r) => r.cpuUs))).toFixed(3)}; goal within 10%)`,
        `first view after a change, 10,000-page / 100-page version, ${smallViews.length} changes each:`,
        `  p50 ${percentile(largeViews, 50).toFixed(1)} / ${percentile(smallViews, 50).toFixed(1)} ms, ` +
          `p99 ${percentile(largeViews, 99).toFixed(1)} / ${percentile(smallViews, 99).toFixed(1)} ms`,
        '',
      ].join('\n'),
    );
  } finally {
    await run.cleanUp();
  }
}

await main();
