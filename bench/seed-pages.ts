/**
 * Seeds a SQLite database (or a PostgreSQL schema) for the pages benchmark: one project, one published version, sections of
 * 500 pages each, and a key with every permission. Page contents are realistic Darkdown (headings,
 * lists, tables, callouts, code tabs, images, badges, [auto$] links to other pages, variables) of about
 * 1–8 KB, generated from a fixed seed so every run measures the same data. Most pages are published
 * with no pending draft; one in ten also has a draft.
 *
 *   node --import tsx bench/seed-pages.ts [--pages 10000] [--db /tmp/quire-bench/pages.db]
 *   node --import tsx bench/seed-pages.ts [--pages 10000] --pg postgres://… [--schema bench_pages]
 */
import fs from 'node:fs';
import type { Insertable } from 'kysely';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { createDeps } from '../src/deps.ts';
import { openDatabase } from '../src/db/dialect.ts';
import type { PagesTable } from '../src/db/schema.ts';
import type { Documentation } from '../src/modules/documentation/documentation.presenter.ts';
import { CLI_ACTOR, wholeProject } from '../src/auth/actor.ts';
import { slugify } from '../src/shared/slug.ts';
import { random } from './fixtures/load.ts';

export interface SeedResult {
  key: string;
  pageIds: number[];
}

const PAGES_PER_SECTION = 500;
const ROWS_PER_STATEMENT = 1000;
const ROWS_PER_TRANSACTION = 10_000;
const WORDS = (
  'api key request response token version section page publish draft content deploy service client ' +
  'server cache index search query header limit window field value schema error retry timeout webhook ' +
  'account project member role permission export import format render preview release migration'
).split(' ');
export const TOPICS = [
  'Getting Started',
  'Authentication',
  'Webhooks',
  'Rate Limits',
  'Pagination',
  'Errors',
  'Deployments',
  'Search',
  'Exports',
  'Billing',
  'Members',
  'Releases',
  'Caching',
  'Migrations',
];

export function contentFor(rnd: () => number, links: readonly string[]): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;
  const sentence = () => {
    const words = Array.from({ length: 8 + Math.floor(rnd() * 14) }, () => pick(WORDS));
    const first = words[0] ?? 'the';
    words[0] = first.charAt(0).toUpperCase() + first.slice(1);
    if (rnd() < 0.3) words[3] = `**${words[3] ?? ''}**`;
    if (rnd() < 0.2) words[5] = `\`${words[5] ?? ''}\``;
    return `${words.join(' ')}.`;
  };
  const paragraph = () => Array.from({ length: 2 + Math.floor(rnd() * 4) }, sentence).join(' ');
  const blocks: string[] = [paragraph()];
  const sections = 2 + Math.floor(rnd() * 5);
  for (let s = 0; s < sections; s++) {
    blocks.push(`## ${pick(TOPICS)} ${s + 1}`, paragraph());
    const kind = rnd();
    if (kind < 0.2) {
      blocks.push(`See [auto$](/${pick(links)}) and [auto$](/${pick(links)}#details) for %product.name%.`);
    } else if (kind < 0.35) {
      const callout = {
        type: pick(['info', 'success', 'warning', 'error']),
        title: 'Note',
        text: paragraph(),
      };
      blocks.push(`$plugin[\n${JSON.stringify({ type: 'callout', data: callout }, null, 2)}\n]$`);
    } else if (kind < 0.5) {
      const code = {
        languageBlocks: [
          { language: 'bash', code: 'curl -H "X-Api-Key: $KEY" https://docs.example.com/api/v1/page/1' },
          {
            language: 'javascript',
            code: 'const res = await fetch(url, { headers });\nconsole.log(await res.json());',
          },
        ],
      };
      // Exports of the real platform escape `/` inside plugin JSON.
      const json = JSON.stringify({ type: 'code-block', data: code }, null, 2).replaceAll('/', '\\/');
      blocks.push(`$plugin[\n${json}\n]$`);
    } else if (kind < 0.6) {
      blocks.push(
        '| Field | Type | Meaning |\n|---|---|---|\n' +
          Array.from({ length: 4 }, () => `| ${pick(WORDS)} | string | ${sentence()} |`).join('\n'),
      );
    } else if (kind < 0.7) {
      const image = {
        url: 'https://cdn.example.com/img/diagram.png',
        mode: '600',
        width: 1200,
        height: 800,
        caption: sentence(),
      };
      blocks.push(`$plugin[\n${JSON.stringify({ type: 'image', data: image })}\n]$`);
    } else {
      blocks.push(Array.from({ length: 3 + Math.floor(rnd() * 4) }, () => `- ${sentence()}`).join('\n'));
    }
    if (rnd() < 0.3) blocks.push(`### Details $inline[badge,Beta,warning]`, paragraph());
  }
  return `${blocks.join('\n\n')}\n`;
}

/**
 * Seeds `pageCount` pages into a new project; on PostgreSQL into `schema` (created if missing) when
 * given. Sections hold `pagesPerSection` pages (500 by default).
 */
export async function seedPages(
  databaseUrl: string,
  pageCount: number,
  schema?: string,
  pagesPerSection = PAGES_PER_SECTION,
): Promise<SeedResult> {
  const deps = createDeps(
    loadConfig({ DATABASE_URL: databaseUrl, QUIRE_BOOTSTRAP: 'false', LOG_LEVEL: 'silent' }),
    schema !== undefined ? { schema } : {},
  );
  try {
    await upgradeDatabase(deps.database, schema);
    const cli = { actor: CLI_ACTOR, ipAddress: null };
    const project = await deps.projects.create(cli, { name: 'Bench', plan: 'enterprise' });
    const ctx = { ...cli, scope: wholeProject(project) };
    const db = deps.database.db;
    await db
      .updateTable('projects')
      .set({ variables: JSON.stringify({ product: { name: 'Quire' } }) })
      .where('id', '=', project.id)
      .execute();
    const version = await deps.versions.create(ctx, { name: 'v1', slug: 'v1', published: true });
    const sectionCount = Math.ceil(pageCount / pagesPerSection);
    const sections: Documentation[] = [];
    for (let s = 0; s < sectionCount; s++) {
      sections.push(
        await deps.documentation.create(ctx, version.id, { title: `Section ${s + 1}`, published: true }),
      );
    }
    const rnd = random(42);
    const planned = Array.from({ length: pageCount }, (_, i) => {
      const section = sections[Math.floor(i / pagesPerSection)];
      if (!section) throw new Error('section missing');
      const title = `${TOPICS[i % TOPICS.length] ?? 'Page'} ${i + 1}`;
      return { section, title, slug: slugify(title) };
    });
    const links = planned.map((p) => `${p.section.slug}/${p.slug}`);
    const now = new Date().toISOString();
    // Many rows per statement and many statements per transaction: 100,000 pages in seconds, not
    // minutes, on both databases (12 parameters a row stays under either one's limit per statement).
    // On PostgreSQL the next chunk is generated and sent while the server still writes the one
    // before; the contents are generated in order either way, so every run seeds the same data.
    const inFlight = deps.database.dialect === 'postgres' ? 2 : 1;
    const chunks: Array<Promise<number[]>> = [];
    const pending = new Set<Promise<number[]>>();
    for (let start = 0; start < planned.length; start += ROWS_PER_TRANSACTION) {
      const statements: Array<Array<Insertable<PagesTable>>> = [];
      const chunk = planned.slice(start, start + ROWS_PER_TRANSACTION);
      for (let offset = 0; offset < chunk.length; offset += ROWS_PER_STATEMENT) {
        statements.push(
          chunk.slice(offset, offset + ROWS_PER_STATEMENT).map((p, j) => {
            const content = contentFor(rnd, links);
            const withDraft = rnd() < 0.1;
            return {
              documentation_id: p.section.id,
              category_id: null,
              parent_page_id: null,
              title: p.title,
              slug: p.slug,
              listed: 1,
              content_published: content,
              content_draft: withDraft ? `${content}\nA pending edit.\n` : null,
              position: ((start + offset + j) % pagesPerSection) + 1,
              deleted_at: null,
              created: now,
              updated: now,
            };
          }),
        );
      }
      const written = db.transaction().execute(async (trx) => {
        const inserted: number[] = [];
        for (const rows of statements) {
          const returned = await trx.insertInto('pages').values(rows).returning('id').execute();
          inserted.push(...returned.map((r) => r.id));
        }
        return inserted;
      });
      chunks.push(written);
      pending.add(written);
      void written.finally(() => pending.delete(written)).catch(() => undefined);
      if (pending.size >= inFlight) await Promise.race(pending);
    }
    const pageIds = (await Promise.all(chunks)).flat();
    const { key } = await deps.keys.create(ctx, { permissions: 'all', versions: 'all' });
    return { key, pageIds };
  } finally {
    await deps.close();
  }
}

/** Seeds once per page count; later runs reuse the file and the key kept beside it. */
export async function seededDatabase(
  dir: string,
  pageCount: number,
): Promise<SeedResult & { databaseUrl: string }> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `pages-${pageCount}.db`);
  const meta = `${file}.json`;
  const databaseUrl = `sqlite:${file}`;
  if (fs.existsSync(meta))
    return { ...(JSON.parse(fs.readFileSync(meta, 'utf8')) as SeedResult), databaseUrl };
  for (const stale of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(stale, { force: true });
  const result = await seedPages(databaseUrl, pageCount);
  fs.writeFileSync(meta, JSON.stringify(result));
  return { ...result, databaseUrl };
}

/** Where each page lives: what `GET /page` by slugs asks for, by page id. */
export interface PageAddress {
  id: number;
  versionSlug: string;
  documentationSlug: string;
  pageSlug: string;
}

/** The slugs of every seeded page, read from the database (PostgreSQL: in `schema`). */
export async function pageAddresses(databaseUrl: string, schema?: string): Promise<PageAddress[]> {
  const handle = openDatabase(databaseUrl, schema !== undefined ? { schema } : {});
  try {
    const rows = await handle.db
      .selectFrom('pages as p')
      .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
      .innerJoin('versions as v', 'v.id', 'd.version_id')
      .select(['p.id', 'p.slug as page', 'd.slug as documentation', 'v.slug as version'])
      .where('p.deleted_at', 'is', null)
      .orderBy('p.id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      versionSlug: r.version,
      documentationSlug: r.documentation,
      pageSlug: r.page,
    }));
  } finally {
    await handle.close();
  }
}

const isEntry = import.meta.url === `file://${process.argv[1] ?? ''}`;
if (isEntry) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const pages = Number(arg('pages') ?? 10_000);
  // `--pg URL --schema NAME` seeds PostgreSQL (the schema is created and kept); else a SQLite file.
  const pgUrl = arg('pg');
  const schema = arg('schema') ?? 'bench_pages';
  const file = arg('db') ?? '/tmp/quire-bench/pages.db';
  if (pgUrl === undefined) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const started = Date.now();
  const seeding = pgUrl === undefined ? seedPages(`sqlite:${file}`, pages) : seedPages(pgUrl, pages, schema);
  seeding.then(
    (result) =>
      process.stdout.write(
        `${JSON.stringify({ ...(pgUrl === undefined ? { file } : { schema }), pages: result.pageIds.length, key: result.key, ms: Date.now() - started })}\n`,
      ),
    (error: unknown) => {
      process.stderr.write(`seed failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
