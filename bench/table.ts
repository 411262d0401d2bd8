/**
 * The scale-out table in one command: each bench the README's scale-out goals are measured with, run
 * one after another (their own output passed through), then every goal as a ratio of figures taken
 * in the same run, next to the machine's fixed-route figure that run measured.
 *
 *   npm run bench -- [--pg postgres://postgres@127.0.0.1:5432/test] [--redis redis://127.0.0.1:6379]
 *        [--duration 5] [--rounds 3] [--large] [--only pages,writes,search,large,history]
 *        [--port-base P]
 *
 * Without `--pg`, the PostgreSQL rows are left out and said to be. `--large` adds the 100,000-page
 * row (its seeding takes minutes the first time; the data is kept for later runs). `--port-base P`
 * gives each bench's servers ports P to P+3 instead of ports chosen by the system.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { optionalArg } from './fixtures/backend.ts';
import { arg } from './fixtures/load.ts';
import type { RowFigures } from './fixtures/rounds.ts';

interface Figures {
  title: string;
  /** load rows, by name */
  rows: Record<string, RowFigures>;
  /** single figures of a bench that is not a load run, by name */
  values?: Record<string, number>;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const pgUrl = optionalArg('pg', 'postgres://postgres@127.0.0.1:5432/test');
const redisUrl = optionalArg('redis', 'redis://127.0.0.1:6379');
const duration = arg('duration', '5');
const rounds = arg('rounds', '3');
const only = new Set(arg('only', 'pages,writes,search,history').split(','));
if (process.argv.includes('--large')) only.add('large');
const portBase = arg('port-base', '');
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-table-'));

function ports(names: readonly string[]): string[] {
  if (portBase === '') return [];
  return names.flatMap((name, i) => [`--${name}`, String(Number(portBase) + i)]);
}

/** Runs one bench with its output passed through; the figures it wrote, or null when it failed. */
function run(script: string, args: readonly string[]): Promise<Figures | null> {
  const json = path.join(outDir, `${script}-${Math.random().toString(36).slice(2)}.json`);
  const argv = ['--import', 'tsx', path.join(HERE, script), ...args, '--json', json];
  process.stdout.write(`\n$ node ${argv.slice(2).join(' ').replace(` --json ${json}`, '')}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => {
      if (code !== 0 || !fs.existsSync(json)) {
        process.stdout.write(`${script} ended with ${code}: its rows are left out\n`);
        resolve(null);
        return;
      }
      resolve(JSON.parse(fs.readFileSync(json, 'utf8')) as Figures);
    });
  });
}

interface Verdict {
  figure: string;
  value: string;
  goal: string;
  met: boolean | null;
}
const verdicts: Verdict[] = [];
const fixedSeen: string[] = [];

function judge(
  figure: string,
  value: number | undefined,
  goal: string,
  met: (v: number) => boolean,
  digits = 2,
) {
  if (value === undefined || !Number.isFinite(value)) {
    verdicts.push({ figure, value: 'not measured', goal, met: null });
    return;
  }
  verdicts.push({ figure, value: value.toFixed(digits), goal, met: met(value) });
}

function noteFixed(figures: Figures | null): void {
  const fixed = figures?.rows.fixed;
  if (figures && fixed) {
    fixedSeen.push(
      `${figures.title}: fixed route ${Math.round(fixed.perSecond)} req/s, p99 ${fixed.p99} ms, ${fixed.cpuUs.toFixed(0)} µs CPU per answer`,
    );
  }
}

const ratio = (a: RowFigures | undefined, b: RowFigures | undefined, pick: (r: RowFigures) => number) =>
  a && b ? pick(a) / pick(b) : undefined;
const perSecond = (r: RowFigures) => r.perSecond;
const common = ['--duration', duration, '--rounds', rounds];
const pg =
  pgUrl !== undefined ? ['--pg', pgUrl, ...(redisUrl !== undefined ? ['--redis', redisUrl] : [])] : [];

if (only.has('pages')) {
  const sqlite = await run('pages.bench.ts', [
    '--pages',
    '10000',
    ...common,
    ...ports(['port', 'info-port', 'fixed-port', 'second-port']),
  ]);
  noteFixed(sqlite);
  const html = sqlite?.rows['html uniform'];
  const fixed = sqlite?.rows.fixed;
  judge(
    'cached html read, SQLite: server CPU per answer / fixed route’s',
    ratio(html, fixed, (r) => r.cpuUs),
    '≤ 1.5',
    (v) => v <= 1.5,
  );
  judge(
    'cached html read, SQLite: p99 / fixed route’s p99',
    ratio(html, fixed, (r) => r.p99),
    '≤ 1.5',
    (v) => v <= 1.5,
  );
  judge(
    'LOG_LEVEL=info / warn, SQLite (req/s)',
    ratio(sqlite?.rows.info, html, perSecond),
    '≥ 0.9',
    (v) => v >= 0.9,
  );
  if (pgUrl !== undefined) {
    const scaled = await run('pages.bench.ts', [
      '--pages',
      '10000',
      ...common,
      ...pg,
      '--instances',
      '2',
      ...ports(['port', 'info-port', 'fixed-port', 'second-port']),
    ]);
    noteFixed(scaled);
    judge(
      'cached html read, PostgreSQL + Redis, 2 instances: req/s / fixed route',
      ratio(scaled?.rows['two instances'], scaled?.rows.fixed, perSecond),
      '≥ 0.45',
      (v) => v >= 0.45,
    );
    judge(
      'LOG_LEVEL=info / warn, PostgreSQL (req/s)',
      ratio(scaled?.rows.info, scaled?.rows['html uniform'], perSecond),
      '≥ 0.9',
      (v) => v >= 0.9,
    );
  }
}

if (only.has('writes')) {
  const sqlite = await run('writes.bench.ts', [
    '--pages',
    '1000',
    ...common,
    ...ports(['port', 'fixed-port']),
  ]);
  noteFixed(sqlite);
  judge(
    'draft update / bare write, SQLite',
    ratio(sqlite?.rows.update, sqlite?.rows.bare, perSecond),
    '≥ 0.7',
    (v) => v >= 0.7,
  );
  if (pgUrl !== undefined) {
    const database = new URL(pgUrl);
    database.pathname = '/quire_bench_writes';
    const postgres = await run('writes.bench.ts', [
      '--pages',
      '1000',
      ...common,
      '--database-url',
      database.toString(),
      ...(redisUrl !== undefined ? ['--redis-url', redisUrl] : []),
      ...ports(['port', 'fixed-port']),
    ]);
    noteFixed(postgres);
    judge(
      'draft update / bare write, PostgreSQL',
      ratio(postgres?.rows.update, postgres?.rows.bare, perSecond),
      '≥ 0.6',
      (v) => v >= 0.6,
    );
    judge(
      'create / bare write, PostgreSQL',
      ratio(postgres?.rows.create, postgres?.rows.bare, perSecond),
      '≥ 0.6',
      (v) => v >= 0.6,
    );
  }
}

if (only.has('search') && pgUrl !== undefined) {
  const search = await run('search.bench.ts', [...common, ...pg, ...ports(['port', 'fixed-port'])]);
  noteFixed(search);
  judge(
    'search, PostgreSQL, 10,000 pages, 50 connections: p50 (ms)',
    search?.rows.search?.p50,
    '< 5',
    (v) => v < 5,
    0,
  );
  judge('search, PostgreSQL: p99 (ms)', search?.rows.search?.p99, '< 20', (v) => v < 20, 0);
}

if (only.has('large')) {
  const large = await run('pages.bench.ts', [
    '--pages',
    '100000',
    '--ids',
    'zipf',
    '--duration',
    duration,
    '--rounds',
    '1',
    '--warm-all',
    '200000',
    '--warmup',
    '10',
    ...ports(['port', 'info-port', 'fixed-port', 'second-port']),
  ]);
  noteFixed(large);
  judge(
    'read by slugs / by id, 100,000 pages, Zipf',
    ratio(large?.rows.slugs, large?.rows['html zipf'], perSecond),
    '≥ 0.95',
    (v) => v >= 0.95,
  );
}

if (only.has('history')) {
  const sqlite = await run('history-growth.bench.ts', ports(['port', 'fixed-port']));
  judge(
    'history of a 20 KB page edited 1,000 times / the page, SQLite',
    sqlite?.values?.growth,
    '≤ 10',
    (v) => v <= 10,
    1,
  );
  if (pgUrl !== undefined) {
    const postgres = await run('history-growth.bench.ts', ['--pg', pgUrl, ...ports(['port', 'fixed-port'])]);
    judge('the same on PostgreSQL', postgres?.values?.growth, '≤ 10', (v) => v <= 10, 1);
  }
}

process.stdout.write(`\nThe machine in this run:\n${fixedSeen.map((line) => `- ${line}\n`).join('')}`);
if (pgUrl === undefined) process.stdout.write('PostgreSQL rows left out: no --pg given\n');
process.stdout.write('\n| figure | this run | goal | |\n|---|---:|---|---|\n');
for (const v of verdicts) {
  process.stdout.write(
    `| ${v.figure} | ${v.value} | ${v.goal} | ${v.met === null ? '–' : v.met ? 'met' : 'NOT met'} |\n`,
  );
}
fs.rmSync(outDir, { recursive: true, force: true });
