/**
 * What the reader site's machine files cost on a large project: `llms.txt` and `sitemap.xml` of a
 * public project of `--pages` published pages (bench/seed-pages.ts: realistic Darkdown of 1–8 KB,
 * 500 pages a section), through a real app in this process.
 *
 *   node --import tsx bench/site-machine.bench.ts [--pages 1000] [--data $TMPDIR/quire-bench-pages]
 *
 * A landing page and a page are read first, as a running server would have: the first render in a
 * process pays for the engine's start. Prints, for each file: the first answer (nothing kept: navigation, descriptions, the file), the
 * answer after one page is renamed (a new change stamp: the file is built again, descriptions of
 * unchanged pages are kept), and a kept answer; with the longest the event loop was held during each
 * (a timer's lateness). For comparison, the same descriptions made from each page's whole published
 * contents rather than its opening, in the same process.
 */
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { renderContent } from '../src/content/index.ts';
import { createDeps } from '../src/deps.ts';
import { parseVariables } from '../src/shared/serialised.ts';
import { describe } from '../src/site/site.content.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { seededDatabase } from './seed-pages.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const pageCount = Number(arg('pages') ?? 1_000);
const dir = arg('data') ?? path.join(os.tmpdir(), 'quire-bench-pages');

const seeded = await seededDatabase(dir, pageCount);
const config = loadConfig({
  DATABASE_URL: seeded.databaseUrl,
  QUIRE_BOOTSTRAP: 'false',
  LOG_LEVEL: 'silent',
  RENDER_AHEAD: 'false',
  RATE_LIMIT_SCALE: '1000',
});
const deps = createDeps(config);
await upgradeDatabase(deps.database);
const app = await buildApp(deps, { logger: false });
const project = await deps.database.db
  .selectFrom('projects')
  .select(['id', 'variables'])
  .where('name', '=', 'Bench')
  .orderBy('id')
  .executeTakeFirstOrThrow();
const root = `/sites/${project.id}`;

async function timed(label: string, url: string): Promise<void> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const started = process.hrtime.bigint();
  const res = await app.inject({ method: 'GET', url });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  delay.disable();
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
  const held = delay.count > 0 ? delay.max / 1e6 : 0;
  process.stdout.write(
    `${label.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms   loop held ${held.toFixed(1).padStart(6)} ms   ${res.body.length} bytes\n`,
  );
}

const firstPage = seeded.pageIds[0];
async function rename(): Promise<void> {
  const res = await app.inject({
    method: 'PUT',
    url: `/api/v1/page/${firstPage}`,
    headers: { 'x-api-key': seeded.key, 'content-type': 'application/json' },
    payload: { title: `Renamed ${Date.now()}` },
  });
  if (res.statusCode !== 200) throw new Error(`rename: ${res.statusCode} ${res.body}`);
}

process.stdout.write(`${pageCount} pages, SQLite\n`);
await timed('landing (warms the app and the navigation)', `${root}/`);
const firstPath = /href="\/sites\/\d+(\/v1\/[^"#]+)"/.exec(
  (await app.inject({ method: 'GET', url: `${root}/` })).body,
)?.[1];
await timed('a page (warms the engine)', `${root}${firstPath ?? '/v1'}`);
await timed('llms.txt, first', `${root}/llms.txt`);
await rename();
await timed('llms.txt, after a rename', `${root}/llms.txt`);
await timed('llms.txt, kept', `${root}/llms.txt`);
await timed('sitemap.xml, first', `${root}/sitemap.xml`);
await rename();
await timed('sitemap.xml, after a rename', `${root}/sitemap.xml`);
await timed('sitemap.xml, kept', `${root}/sitemap.xml`);

// The same descriptions from whole contents, for comparison.
const rows = await deps.database.db
  .selectFrom('pages')
  .select(['title', 'content_published'])
  .where('content_published', 'is not', null)
  .where('deleted_at', 'is', null)
  .execute();
const variables = parseVariables(project.variables);
const started = process.hrtime.bigint();
for (const row of rows)
  describe(renderContent(row.content_published, 'html', { variables }) ?? '', row.title);
const wholeMs = Number(process.hrtime.bigint() - started) / 1e6;
process.stdout.write(
  `${'whole contents rendered for descriptions'.padEnd(44)} ${wholeMs.toFixed(1).padStart(8)} ms   (${rows.length} pages, one block)\n`,
);

await app.close();
await deps.close();
