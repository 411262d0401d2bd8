import type { Insertable } from 'kysely';
import type { ApiReferencesTable, PagesTable } from '../src/db/schema.ts';
import type { Deps } from '../src/deps.ts';
import { CLI_ACTOR, wholeProject } from '../src/auth/actor.ts';
import { toStoredDate } from '../src/shared/dates.ts';

export interface SeedAllOptions {
  pages: number;
  versions: number;
  sectionsPerVersion: number;
  referencesPerVersion: number;
}

export interface SeededProject {
  projectId: number;
  key: string;
  pages: number;
}

// Below SQLite's bound-parameter limit (13 columns a row) and PostgreSQL's.
const BATCH = 500;

const WORDS = (
  'api request response token header endpoint version section page publish draft reader access ' +
  'webhook retry limit cursor pagination schema field object array string integer boolean default ' +
  'install configure deploy monitor error status example note warning client server project'
).split(' ');

/** A small deterministic generator, so every run seeds the same bytes. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sentence(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)] ?? 'word');
  const text = out.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** About 3-4 KB of Darkdown-like Markdown: headings, paragraphs, a list, a code block. */
function pageBody(rand: () => number, title: string): string {
  const parts = [`# ${title}`, sentence(rand, 25)];
  for (let h = 1; h <= 4; h++) {
    parts.push(`## ${sentence(rand, 3).slice(0, -1)}`, sentence(rand, 40), sentence(rand, 30));
    parts.push(['- ', '- ', '- '].map((b) => b + sentence(rand, 8)).join('\n'));
  }
  parts.push('```json\n{ "id": 42, "status": "published", "items": [1, 2, 3] }\n```');
  return parts.join('\n\n');
}

const PROJECT_NAME = 'Benchmark project';

/**
 * The project an earlier seedAllProject left in this database, with a new key; null when there is
 * none. One of another number of pages than asked for is an error.
 */
export async function reuseAllProject(deps: Deps, pages: number): Promise<SeededProject | null> {
  const db = deps.database.db;
  const row = await db
    .selectFrom('projects')
    .select('id')
    .where('name', '=', PROJECT_NAME)
    .executeTakeFirst();
  if (!row) return null;
  const counted = await db
    .selectFrom('pages')
    .innerJoin('documentation', 'documentation.id', 'pages.documentation_id')
    .innerJoin('versions', 'versions.id', 'documentation.version_id')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('versions.project_id', '=', row.id)
    .where('pages.deleted_at', 'is', null)
    .executeTakeFirst();
  const held = Number(counted?.n ?? 0);
  if (held !== pages) {
    throw new Error(`This database holds a benchmark project of ${held} pages, not ${pages}`);
  }
  const project = await deps.projects.get(row.id);
  const cli = { actor: CLI_ACTOR, ipAddress: null };
  const { key } = await deps.keys.create(
    { ...cli, scope: wholeProject(project) },
    { permissions: 'all', versions: 'all' },
  );
  return { projectId: project.id, key, pages };
}

/**
 * One project with `pages` pages of realistic size spread over versions and sections, and a few
 * references. Versions, sections and the key go through the services; the bulk rows are inserted
 * directly, in batches, inside one transaction.
 */
export async function seedAllProject(deps: Deps, options: SeedAllOptions): Promise<SeededProject> {
  const rand = prng(20261121);
  const cli = { actor: CLI_ACTOR, ipAddress: null };
  const project = await deps.projects.create(cli, {
    name: PROJECT_NAME,
    plan: 'enterprise',
    access: 'invite',
  });
  const ctx = { ...cli, scope: wholeProject(project) };
  const { key } = await deps.keys.create(ctx, { permissions: 'all', versions: 'all' });
  const sections: Array<{ id: number }> = [];
  const versionIds: number[] = [];
  for (let v = 1; v <= options.versions; v++) {
    // The last version is an unpublished draft of the next release.
    const version = await deps.versions.create(ctx, {
      name: `v${v}.0`,
      published: v < options.versions || options.versions === 1,
    });
    versionIds.push(version.id);
    for (let s = 1; s <= options.sectionsPerVersion; s++) {
      sections.push(
        await deps.documentation.create(ctx, version.id, {
          title: `Section ${s} ${sentence(rand, 2)}`,
          published: s % 7 !== 0,
        }),
      );
    }
  }

  const now = deps.clock.now();
  const pages: Array<Insertable<PagesTable>> = [];
  // Plus 2% deleted pages, which the listing must skip.
  const total = options.pages + Math.floor(options.pages / 50);
  for (let i = 0; i < total; i++) {
    const section = sections[i % sections.length];
    if (!section) throw new Error('no sections to seed pages into');
    const title = `${sentence(rand, 4).slice(0, -1)} ${i + 1}`;
    const body = pageBody(rand, title);
    const stamp = toStoredDate(now - Math.floor(rand() * 90 * 86_400_000));
    pages.push({
      documentation_id: section.id,
      category_id: null,
      parent_page_id: null,
      title,
      slug: `page-${i + 1}`,
      listed: i % 10 === 0 ? 0 : 1,
      content_draft: i % 4 === 0 ? `${body}\n\nPending edit.` : null,
      content_published: body,
      position: Math.floor(i / sections.length) + 1,
      deleted_at: i >= options.pages ? stamp : null,
      created: stamp,
      updated: stamp,
    });
  }
  const definition = JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Bench', version: '1' },
    paths: Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `/items/${i}`,
        { get: { responses: { 200: { description: 'ok' } } } },
      ]),
    ),
  });
  const references: Array<Insertable<ApiReferencesTable>> = versionIds.flatMap((versionId) =>
    Array.from({ length: options.referencesPerVersion }, (_, r) => ({
      version_id: versionId,
      title: `Service ${r + 1} API`,
      slug: `service-${r + 1}-api`,
      ordr: r + 1,
      published: r % 3 === 2 ? 0 : 1,
      definition_published: definition,
      format_published: 'json' as const,
      definition_draft: null,
      format_draft: null,
      deleted_at: null,
      created: toStoredDate(now),
      updated: toStoredDate(now),
    })),
  );

  await deps.database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < pages.length; i += BATCH) {
      await trx
        .insertInto('pages')
        .values(pages.slice(i, i + BATCH))
        .execute();
    }
    if (references.length > 0) await trx.insertInto('api_references').values(references).execute();
  });
  return { projectId: project.id, key, pages: options.pages };
}
