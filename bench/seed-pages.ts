/**
 * Seeds a SQLite database for the pages benchmark: one project, one published version, sections of
 * 500 pages each, and a key with every permission. Page contents are realistic Darkdown (headings,
 * lists, tables, callouts, code tabs, images, badges, [auto$] links to other pages, variables) of about
 * 1–8 KB, generated from a fixed seed so every run measures the same data. Most pages are published
 * with no pending draft; one in ten also has a draft.
 *
 *   node --import tsx bench/seed-pages.ts [--pages 10000] [--db /tmp/quire-bench/pages.db]
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { createDeps } from '../src/deps.ts';
import type { Documentation } from '../src/modules/documentation/documentation.presenter.ts';
import { CLI_ACTOR, wholeProject } from '../src/auth/actor.ts';
import { slugify } from '../src/shared/slug.ts';
import { random } from './fixtures/load.ts';

export interface SeedResult {
  key: string;
  pageIds: number[];
}

const PAGES_PER_SECTION = 500;
const WORDS = (
  'api key request response token version section page publish draft content deploy service client ' +
  'server cache index search query header limit window field value schema error retry timeout webhook ' +
  'account project member role permission export import format render preview release migration'
).split(' ');
const TOPICS = [
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

function contentFor(rnd: () => number, links: readonly string[]): string {
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

/** Seeds `pageCount` pages; on PostgreSQL into `schema` (created if missing) when given. */
export async function seedPages(
  databaseUrl: string,
  pageCount: number,
  schema?: string,
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
    const sectionCount = Math.ceil(pageCount / PAGES_PER_SECTION);
    const sections: Documentation[] = [];
    for (let s = 0; s < sectionCount; s++) {
      sections.push(
        await deps.documentation.create(ctx, version.id, { title: `Section ${s + 1}`, published: true }),
      );
    }
    const rnd = random(42);
    const planned = Array.from({ length: pageCount }, (_, i) => {
      const section = sections[Math.floor(i / PAGES_PER_SECTION)];
      if (!section) throw new Error('section missing');
      const title = `${TOPICS[i % TOPICS.length] ?? 'Page'} ${i + 1}`;
      return { section, title, slug: slugify(title) };
    });
    const links = planned.map((p) => `${p.section.slug}/${p.slug}`);
    const now = new Date().toISOString();
    const pageIds: number[] = [];
    for (let start = 0; start < planned.length; start += 200) {
      const rows = planned.slice(start, start + 200).map((p, j) => {
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
          position: ((start + j) % PAGES_PER_SECTION) + 1,
          deleted_at: null,
          created: now,
          updated: now,
        };
      });
      const inserted = await db.insertInto('pages').values(rows).returning('id').execute();
      pageIds.push(...inserted.map((r) => r.id));
    }
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

const isEntry = import.meta.url === `file://${process.argv[1] ?? ''}`;
if (isEntry) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const pages = Number(arg('pages') ?? 10_000);
  const file = arg('db') ?? '/tmp/quire-bench/pages.db';
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const started = Date.now();
  seedPages(`sqlite:${file}`, pages).then(
    (result) =>
      process.stdout.write(
        `${JSON.stringify({ file, pages: result.pageIds.length, key: result.key, ms: Date.now() - started })}\n`,
      ),
    (error: unknown) => {
      process.stderr.write(`seed failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
