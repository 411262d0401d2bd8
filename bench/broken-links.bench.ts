/**
 * The broken-links report (N4) of a large version: 10,000 pages of generated Darkdown (about 2–5 KB,
 * about nine links each: page links with and without the version, `[auto$]` links, heading
 * fragments, reference links, external links, links in callouts and lists; about one in twenty
 * broken), one in ten with a pending draft, one section in twenty unpublished, on SQLite or, with
 * `--database-url postgres://…`, on PostgreSQL in a schema of its own (dropped afterwards).
 *
 *   node --import tsx bench/broken-links.bench.ts [--pages 10000] [--rounds 3] [--port P]
 *        [--pg [postgres://postgres@127.0.0.1:5432/test]] [--redis [redis://127.0.0.1:6379]]
 *
 * `--database-url URL` is the older spelling of `--pg URL`. `--redis` keeps the rate-limit counters in
 * Redis under a key prefix of this run's own, deleted at the end. The port, when not given, is chosen
 * by the system.
 *
 * The server runs in this process on `--port`, with one worker thread kept warm as `quire serve`
 * keeps it. Scans are kept in memory by source and project variables, and stored (link_scans) under
 * the same keys: new variables make every kept scan useless, as if none had ever been made. Each round
 * asks `GET /version/{id}/broken-links`:
 *
 * - with nothing stored and nothing cached (the fallback: contents Quire did not write, like these,
 *   which are inserted directly), then again with every scan cached in memory, then with nothing
 *   stored or cached while one client reads `GET /version` one request after another (how long the
 *   event loop was held); after each, the scans the report made are stored in the background;
 * - with the scans stored as pages written through Quire have them (a clone or an import queues its
 *   version for the background scan, an edit its page): the version is queued with the warmer, whose
 *   background scan is timed (with the same reading client), then the report is asked with nothing
 *   cached in memory.
 *
 * Goal (the newer-operations issue): under 2 s for 10,000 pages on SQLite and PostgreSQL.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { CLI_ACTOR, wholeProject } from '../src/auth/actor.ts';
import { headingAnchor } from '../src/content/heading-anchor.ts';
import { loadConfig } from '../src/config.ts';
import { createDeps, type Deps } from '../src/deps.ts';
import type { Documentation } from '../src/modules/documentation/documentation.presenter.ts';
import { slugify } from '../src/shared/slug.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { backendFromArgs } from './fixtures/backend.ts';
import { arg, random } from './fixtures/load.ts';

const PAGES_PER_SECTION = 500;
const WORDS = (
  'api key request response token version section page publish draft content deploy service client ' +
  'server cache index search query header limit window field value schema error retry timeout webhook ' +
  'account project member role permission export import format render preview release migration'
).split(' ');
/** The reference every page may link to, and its operations' anchors as search derives them. */
const REFERENCE = {
  openapi: '3.0.3',
  info: { title: 'Petstore', version: '1' },
  paths: {
    '/pets': {
      get: { operationId: 'listPets', responses: { 200: { description: 'Pets' } } },
      post: { operationId: 'createPet', responses: { 201: { description: 'Created' } } },
    },
  },
};

interface PlannedPage {
  section: number;
  title: string;
  slug: string;
  headings: string[];
}

/** One page's Darkdown: prose, headings, a plugin or a list per part, and links of every kind. */
function pageContent(
  rnd: () => number,
  plan: readonly PlannedPage[],
  sections: readonly string[],
  self: PlannedPage,
) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;
  const sentence = () => {
    const words = Array.from({ length: 8 + Math.floor(rnd() * 12) }, () => pick(WORDS));
    words[0] = (words[0] ?? 'the').replace(/^./, (c) => c.toUpperCase());
    if (rnd() < 0.3) words[3] = `**${words[3] ?? ''}**`;
    return `${words.join(' ')}.`;
  };
  const paragraph = () => Array.from({ length: 2 + Math.floor(rnd() * 3) }, sentence).join(' ');
  const path = (page: PlannedPage) => `${sections[page.section] ?? ''}/${page.slug}`;
  const anchor = (page: PlannedPage) => headingAnchor(pick(page.headings));
  // Most links lead somewhere; about one in twenty is broken (a missing page, heading or operation,
  // a malformed address), as in a documentation that lives.
  const link = (): string => {
    const target = pick(plan);
    const roll = rnd();
    if (roll < 0.02) return `[gone](/${sections[0] ?? ''}/no-such-page-${Math.floor(rnd() * 1000)})`;
    if (roll < 0.04) return `[stale](/${path(target)}#no-such-heading)`;
    if (roll < 0.24) return `[auto$](/${path(target)}#${anchor(target)})`;
    if (roll < 0.39) return `[in v1](/v1/${path(target)}#${anchor(target)})`;
    if (roll < 0.49) return `[the API](/ref/petstore#${rnd() < 0.1 ? 'deletepet' : 'listpets'})`;
    if (roll < 0.64) return `[elsewhere](https://example.com/${pick(WORDS)}?q=${pick(WORDS)})`;
    if (roll < 0.645) return '[typo](http://)';
    return `[${pick(WORDS)}](/${path(target)})`;
  };
  const blocks = [`${paragraph()} See ${link()} and ${link()}.`];
  self.headings.forEach((heading, k) => {
    blocks.push(`## ${heading}`, `${paragraph()} Read ${link()}.`);
    const kind = k % 3;
    if (kind === 0) {
      const callout = { type: 'info', title: 'Note', text: `${paragraph()}\n\nMore in ${link()}.` };
      blocks.push(
        `$plugin[\n${JSON.stringify({ type: 'callout', data: callout }, null, 2).replaceAll('/', '\\/')}\n]$`,
      );
    } else if (kind === 1) {
      blocks.push(Array.from({ length: 3 }, () => `- ${sentence()} ${rnd() < 0.3 ? link() : ''}`).join('\n'));
    } else {
      blocks.push('```bash\ncurl -H "X-Api-Key: $KEY" https://docs.example.com/api/v1/page/1\n```');
    }
  });
  return `${blocks.join('\n\n')}\n`;
}

/** A project with one version of `pageCount` pages (one section in twenty unpublished), and a key. */
async function seed(deps: Deps, pageCount: number) {
  const cli = { actor: CLI_ACTOR, ipAddress: null };
  const project = await deps.projects.create(cli, { name: 'Links bench', plan: 'enterprise' });
  const ctx = { ...cli, scope: wholeProject(project) };
  const db = deps.database.db;
  const version = await deps.versions.create(ctx, { name: 'v1', slug: 'v1', published: true });
  const sectionCount = Math.ceil(pageCount / PAGES_PER_SECTION);
  const sections: Documentation[] = [];
  for (let s = 0; s < sectionCount; s++) {
    const published = s % 20 !== 19;
    sections.push(await deps.documentation.create(ctx, version.id, { title: `Section ${s + 1}`, published }));
  }
  const now = new Date().toISOString();
  await db
    .insertInto('api_references')
    .values({
      version_id: version.id,
      title: 'Petstore',
      slug: 'petstore',
      ordr: 0,
      published: 1,
      definition_published: JSON.stringify(REFERENCE),
      format_published: 'json',
      definition_draft: null,
      format_draft: null,
      deleted_at: null,
      created: now,
      updated: now,
    })
    .execute();
  const rnd = random(7);
  const plan: PlannedPage[] = Array.from({ length: pageCount }, (_, i) => {
    const title = `${WORDS[i % WORDS.length] ?? 'page'} guide ${i + 1}`;
    const headings = Array.from(
      { length: 3 + Math.floor(rnd() * 4) },
      (_, k) => `${WORDS[(i + k) % WORDS.length] ?? ''} part ${k + 1}`,
    );
    return { section: Math.floor(i / PAGES_PER_SECTION), title, slug: slugify(title), headings };
  });
  const sectionSlugs = sections.map((s) => s.slug);
  let chars = 0;
  for (let start = 0; start < plan.length; start += 200) {
    const rows = plan.slice(start, start + 200).map((page, j) => {
      const content = pageContent(rnd, plan, sectionSlugs, page);
      chars += content.length;
      const section = sections[page.section];
      if (section === undefined) throw new Error('section missing');
      return {
        documentation_id: section.id,
        category_id: null,
        parent_page_id: null,
        title: page.title,
        slug: page.slug,
        listed: rnd() < 0.99 ? 1 : 0,
        content_published: content,
        content_draft: rnd() < 0.1 ? `${content}\nA pending edit.\n` : null,
        position: ((start + j) % PAGES_PER_SECTION) + 1,
        deleted_at: null,
        source_page_id: null,
        created: now,
        updated: now,
      };
    });
    await db.insertInto('pages').values(rows).execute();
  }
  const { key } = await deps.keys.create(ctx, { permissions: 'all', versions: 'all' });
  return { key, projectId: project.id, versionId: version.id, averageKb: chars / pageCount / 1024 };
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

/** `GET /version`, one after another, until `until` settles: every latency in ms. */
async function readWhile(base: string, key: string, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  while (!done) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/version`, { headers: { 'x-api-key': key } });
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const pages = Number(arg('pages', '10000'));
  const rounds = Math.max(1, Number(arg('rounds', '3')));
  const backend = backendFromArgs('links');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-links-'));
  const databaseUrl = backend.pgUrl ?? `sqlite:${path.join(dir, 'links.db')}`;
  const { schema } = backend;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    ...(backend.redisUrl !== null ? { REDIS_URL: backend.redisUrl } : {}),
    QUIRE_BOOTSTRAP: 'false',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_SCALE: '1000000',
  });
  // As `quire serve` runs: one worker thread kept alive, warmed before the first request.
  const deps = createDeps(config, {
    workerMinThreads: 1,
    redisPrefix: backend.redisPrefix,
    ...(schema !== undefined ? { schema } : {}),
  });
  const app = await buildApp(deps, { logger: false });
  try {
    await upgradeDatabase(deps.database, schema);
    const seedStarted = performance.now();
    const seeded = await seed(deps, pages);
    await deps.workers.warm();
    await app.listen({ host: '127.0.0.1', port: Number(arg('port', '0')) });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    process.stdout.write(
      `data: ${pages} pages of ${seeded.averageKb.toFixed(1)} KB on average on ${backend.label}, ` +
        `seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s\n`,
    );
    const db = deps.database.db;
    // New variables: no scan kept in memory or stored matches any more; the store emptied as well.
    let generation = 0;
    const forget = async () => {
      await db
        .updateTable('projects')
        .set({ variables: JSON.stringify({ bench: ++generation }) })
        .where('id', '=', seeded.projectId)
        .execute();
      await db.deleteFrom('link_scans').execute();
    };
    const reportOnce = async () => {
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/version/${seeded.versionId}/broken-links`, {
        headers: { 'x-api-key': seeded.key },
      });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`report answered ${res.status}: ${body.slice(0, 300)}`);
      return { ms: performance.now() - started, body };
    };
    /** The background work under way, timed: what the report made being stored, or a version's scan. */
    const background = async () => {
      const started = performance.now();
      await deps.linkScans.idle();
      return performance.now() - started;
    };
    const latencyNote = (latencies: number[]) =>
      `${latencies.length} GET /version meanwhile, p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
      `worst ${percentile(latencies, 100).toFixed(0)} ms`;
    for (let round = 1; round <= rounds; round++) {
      await forget();
      const cold = await reportOnce();
      const storing = await background();
      const cached = await reportOnce();
      await forget();
      const reporting = reportOnce();
      const latencies = await readWhile(base, seeded.key, reporting);
      const withReader = await reporting;
      await background();

      await forget();
      deps.linkScans.queueVersion(seeded.projectId, seeded.versionId);
      const scanning = background();
      const scanLatencies = await readWhile(base, seeded.key, scanning);
      const scanMs = await scanning;
      const stored = await db
        .selectFrom('link_scans')
        .select((eb) => eb.fn.countAll<string | number>().as('count'))
        .executeTakeFirstOrThrow();
      const fromStore = await reportOnce();
      if (fromStore.body !== cold.body) throw new Error('the report from stored scans differs');
      if (deps.linkScans.failures > 0) throw new Error(`${deps.linkScans.failures} background steps failed`);

      const findings = JSON.parse(cold.body) as Array<{ severity: string }>;
      const errors = findings.filter((f) => f.severity === 'error').length;
      process.stdout.write(
        `round ${round}: ${findings.length} findings (${errors} errors), ${(cold.body.length / 1024 / 1024).toFixed(1)} MiB\n` +
          `  nothing stored, nothing cached: ${cold.ms.toFixed(0)} ms (its scans stored in the background ` +
          `in ${(storing / 1000).toFixed(1)} s); scans cached: ${cached.ms.toFixed(0)} ms; nothing stored or ` +
          `cached with a reader: ${withReader.ms.toFixed(0)} ms, ${latencyNote(latencies)}\n` +
          `  background scan of the version (as after a clone or an import): ${(scanMs / 1000).toFixed(1)} s, ` +
          `${Number(stored.count)} scans stored, ${latencyNote(scanLatencies)}\n` +
          `  scans stored (pages written through Quire), nothing cached: ${fromStore.ms.toFixed(0)} ms\n`,
      );
    }
  } finally {
    await app.close();
    await deps.close();
    await backend.cleanUp();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
