/**
 * Lighthouse on the reader site (site.md §8: performance, accessibility, best practices and SEO each
 * at least 95, desktop and mobile, on a page of a published demo project).
 *
 *   node --import tsx bench/site-lighthouse.ts PORT [--keep DIR]
 *
 * Builds the fixture project of the site's tests (test/site/fixture-project.ts) in a new SQLite
 * database, serves it on its own host, http://localhost:PORT (so robots.txt and the canonical
 * addresses are the site's), and runs Lighthouse 12.2.3 with Debian's Chromium on one of its pages,
 * once with the desktop preset and once as the default mobile device. Prints the four scores of
 * each and every audit that lost points; exits 1 when a score is under 95. Lighthouse is run with
 * `npm exec` at a pinned version, never installed into the project: later releases need Node 22.
 * With --keep DIR the two JSON reports stay in DIR.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { CLI_ACTOR } from '../src/auth/actor.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { buildFixtureProject } from '../test/site/fixture-project.ts';

const LIGHTHOUSE = 'lighthouse@12.2.3';
const CHROMIUM = '/usr/bin/chromium';
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
].join(' ');
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const TARGET = 95;

interface Report {
  categories: Record<string, { score: number | null; auditRefs: Array<{ id: string; weight: number }> }>;
  audits: Record<string, { title: string; score: number | null; displayValue?: string }>;
  runtimeError?: { message: string };
  runWarnings?: string[];
}

function parseArguments(): { port: number; keep: string | null } {
  const [portText, flag, dir] = process.argv.slice(2);
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    process.stderr.write('usage: node --import tsx bench/site-lighthouse.ts PORT [--keep DIR]\n');
    process.exit(2);
  }
  return { port, keep: flag === '--keep' && dir !== undefined ? dir : null };
}

/** Runs Lighthouse once; resolves with its JSON report. */
function lighthouse(url: string, formFactor: 'desktop' | 'mobile', output: string): Promise<Report> {
  const args = [
    'exec',
    '--yes',
    `--package=${LIGHTHOUSE}`,
    '--',
    'lighthouse',
    url,
    `--chrome-path=${CHROMIUM}`,
    `--chrome-flags=${CHROME_FLAGS}`,
    `--only-categories=${CATEGORIES.join(',')}`,
    '--output=json',
    `--output-path=${output}`,
    '--quiet',
    ...(formFactor === 'desktop' ? ['--preset=desktop'] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`lighthouse (${formFactor}) exited with ${code}`));
        return;
      }
      resolve(JSON.parse(fs.readFileSync(output, 'utf8')) as Report);
    });
  });
}

/** The four scores, then each audit that counts in a category and did not score full marks. */
function summarise(formFactor: string, report: Report): { line: string; lost: string[]; low: boolean } {
  if (report.runtimeError) throw new Error(`${formFactor}: ${report.runtimeError.message}`);
  for (const warning of report.runWarnings ?? []) process.stdout.write(`${formFactor}: ${warning}\n`);
  const scores = CATEGORIES.map((id) => Math.round((report.categories[id]?.score ?? 0) * 100));
  const lost: string[] = [];
  for (const id of CATEGORIES) {
    for (const ref of report.categories[id]?.auditRefs ?? []) {
      const audit = report.audits[ref.id];
      if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) {
        lost.push(
          `  ${formFactor} ${id}: ${audit.title} (${audit.score})${audit.displayValue ? ` ${audit.displayValue}` : ''}`,
        );
      }
    }
  }
  const line = `${formFactor.padEnd(8)} ${scores.map((s) => String(s).padStart(16)).join('')}`;
  return { line, lost, low: scores.some((score) => score < TARGET) };
}

async function main(): Promise<void> {
  const { port, keep } = parseArguments();
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-lighthouse-'));
  const config = loadConfig({
    DATABASE_URL: `sqlite:${path.join(dir, 'quire.db')}`,
    QUIRE_BOOTSTRAP: 'false',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
  });
  const deps = createDeps(config, { workerMinThreads: 1 });
  await upgradeDatabase(deps.database);
  const app = await buildApp(deps, { logger: false });
  try {
    const fixture = await buildFixtureProject(deps, {
      sections: 6,
      pagesPerSection: 20,
      projectName: 'Harbor',
    });
    // On its own host, as a team would deploy it: the site owns the host's root and robots.txt.
    const origin = `http://localhost:${port}`;
    await deps.projects.update(await deps.projects.contextFor(CLI_ACTOR, { projectId: fixture.projectId }), {
      host: origin,
    });
    await app.listen({ host: '127.0.0.1', port });
    const url = `${origin}${fixture.richPage.path}`;
    // One visit first, so the page's render is kept: Lighthouse measures serving, not the first render.
    const warm = await fetch(url);
    if (warm.status !== 200) throw new Error(`${url} answered ${warm.status}`);
    process.stdout.write(`Lighthouse ${LIGHTHOUSE.split('@')[1]} on ${url}\n`);

    const results = [];
    for (const formFactor of ['desktop', 'mobile'] as const) {
      const output = path.join(keep ?? dir, `lighthouse-${formFactor}.json`);
      if (keep) fs.mkdirSync(keep, { recursive: true });
      results.push(summarise(formFactor, await lighthouse(url, formFactor, output)));
    }
    process.stdout.write(`\n${''.padEnd(8)} ${CATEGORIES.map((c) => c.padStart(16)).join('')}\n`);
    for (const result of results) process.stdout.write(`${result.line}\n`);
    const lost = results.flatMap((r) => r.lost);
    if (lost.length > 0) process.stdout.write(`\nAudits that lost points:\n${lost.join('\n')}\n`);
    if (results.some((r) => r.low)) {
      process.stdout.write(`\nA score is under ${TARGET}.\n`);
      process.exitCode = 1;
    }
  } finally {
    await app.close();
    await deps.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
