import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import { PreparedRead } from '../../db/prepared.ts';
import type { Database } from '../../db/schema.ts';
import { livePages, liveSections } from '../../db/visibility.ts';
import { versionPageFiles, type PageFileRow } from './markdoc-links.repository.ts';

/**
 * A page with what presenting and rendering it needs: the slugs of its path and its project's
 * variables. Reads for an answer take the contents as `Source` (see PageQueries.readView).
 */
export interface PageView<C extends Source = string> {
  id: number;
  documentation_id: number;
  version_id: number;
  title: string;
  slug: string;
  listed: number;
  content_draft: C | null;
  content_published: C | null;
  created: string;
  updated: string;
  documentation_slug: string;
  version_slug: string;
  /** projects.variables, JSON text */
  variables: string;
}

/** One page that an [auto$] link may name: its key is `${documentation_slug}/${slug}`. */
export interface LinkTitleRow {
  documentation_slug: string;
  slug: string;
  title: string;
}

/**
 * A stored Darkdown text, or on SQLite its UTF-8 bytes as stored: copying them out costs a fraction
 * of decoding them into a string, which for a large page is the event loop's longest step of a read.
 */
export type Source = string | Uint8Array;

/** Live pages of live sections of live versions of one project; other projects' ids stay invisible. */
const livePagesOf = (db: Executor, projectId: number) =>
  livePages(db)
    .innerJoin('projects as pr', 'pr.id', 'v.project_id')
    .select([
      'p.id',
      'p.documentation_id',
      'd.version_id',
      'p.title',
      'p.slug',
      'p.listed',
      'p.created',
      'p.updated',
      'd.slug as documentation_slug',
      'v.slug as version_slug',
      'pr.variables',
    ])
    .where('v.project_id', '=', projectId);

const views = (db: Executor, projectId: number) =>
  livePagesOf(db, projectId).select(['p.content_draft', 'p.content_published']);

/** As views, the contents as bytes on SQLite (a cast to blob keeps the stored UTF-8 as it is). */
const readViews = (db: Executor, projectId: number, sqlite: boolean) => {
  const content = (column: 'p.content_draft' | 'p.content_published') =>
    sqlite ? sql<Source | null>`cast(${sql.ref(column)} as blob)` : sql<Source | null>`${sql.ref(column)}`;
  return livePagesOf(db, projectId).select([
    content('p.content_draft').as('content_draft'),
    content('p.content_published').as('content_published'),
  ]);
};

/**
 * What a new page needs to know of its section, read in one statement: the section (live, of a live
 * version of the project), the slugs of its path, the project's variables, the last position of the
 * section's index (pages and categories share it) and whether a page holds the slug wanted. Each
 * subquery is one seek in an index: (documentation_id, position) of pages and of categories, and the
 * unique (documentation_id, slug) of pages.
 */
export interface NewPageSection {
  id: number;
  version_id: number;
  slug: string;
  version_slug: string;
  variables: string;
  last_page: number | string | null;
  last_category: number | string | null;
  /** the slug asked about when a page of the section holds it, deleted ones included */
  slug_holder: string | null;
}

const newPageSection = (db: Executor, projectId: number, documentationId: number, slug: string) =>
  liveSections(db)
    .innerJoin('projects as pr', 'pr.id', 'v.project_id')
    .select((eb) => [
      'd.id',
      'd.version_id',
      'd.slug',
      'v.slug as version_slug',
      'pr.variables',
      eb
        .selectFrom('pages as lp')
        .select((inner) => inner.fn.max('lp.position').as('position'))
        .whereRef('lp.documentation_id', '=', 'd.id')
        .as('last_page'),
      eb
        .selectFrom('categories as lc')
        .select((inner) => inner.fn.max('lc.position').as('position'))
        .whereRef('lc.documentation_id', '=', 'd.id')
        .as('last_category'),
      eb
        .selectFrom('pages as sp')
        .select('sp.slug')
        .whereRef('sp.documentation_id', '=', 'd.id')
        .where('sp.slug', '=', slug)
        .as('slug_holder'),
    ])
    .where('v.project_id', '=', projectId)
    .where('d.id', '=', documentationId);

/** [auto$] link targets are looked up this many at a time. */
const LINK_SLOTS = 4;

/**
 * Titles of the live pages named by (section slug, page slug) pairs in one version. The pairs drive
 * the join (a VALUES list of LINK_SLOTS rows, unused ones null) so that each is one lookup in the
 * unique (documentation_id, slug) index: with the slugs as `IN` lists, SQLite's planner scans a whole
 * section through the listing index instead. On SQLite the unary `+` keeps that index out of the
 * deleted_at tests too, which is why they are written here and not taken from db/visibility.ts.
 */
const linkTitles = (
  db: Kysely<Database>,
  sqlite: boolean,
  versionId: number,
  slots: Array<string | null>,
) => {
  const rows = [];
  for (let i = 0; i < slots.length; i += 2) rows.push(sql`(${slots[i]}, ${slots[i + 1]})`);
  const wanted = sql<{ column1: string; column2: string }>`(values ${sql.join(rows)})`.as('wanted');
  const deletedAt = (column: 'p.deleted_at' | 'd.deleted_at') =>
    sqlite ? sql`+${sql.ref(column)}` : sql.ref(column);
  return db
    .selectFrom(wanted)
    .innerJoin('documentation as d', (join) =>
      join.on('d.version_id', '=', versionId).onRef('d.slug', '=', 'wanted.column1'),
    )
    .innerJoin('pages as p', (join) =>
      join.onRef('p.documentation_id', '=', 'd.id').onRef('p.slug', '=', 'wanted.column2'),
    )
    .select(['d.slug as documentation_slug', 'p.slug', 'p.title'])
    .where(deletedAt('p.deleted_at'), 'is', null)
    .where(deletedAt('d.deleted_at'), 'is', null);
};

/**
 * The reads of pages, each defined once and compiled once (db/prepared.ts): on the read connection
 * for requests, on the transaction for the reads inside a write.
 */
export class PageQueries {
  private readonly byId: PreparedRead<[projectId: number, id: number], PageView>;
  private readonly bySlug: PreparedRead<[projectId: number, documentationId: number, slug: string], PageView>;
  private readonly readById: PreparedRead<[projectId: number, id: number], PageView<Source>>;
  private readonly readBySlug: PreparedRead<
    [projectId: number, documentationId: number, slug: string],
    PageView<Source>
  >;
  private readonly titles: PreparedRead<Array<string | number | null>, LinkTitleRow>;
  private readonly lockedById: PreparedRead<[projectId: number, id: number], PageView>;
  private readonly newSection: PreparedRead<
    [projectId: number, documentationId: number, slug: string],
    NewPageSection
  >;

  private readonly reader: Kysely<Database>;

  constructor(handle: DatabaseHandle) {
    this.reader = handle.reader;
    const postgres = handle.dialect === 'postgres';
    this.lockedById = new PreparedRead(handle, 2, (db, projectId, id) => {
      const query = views(db, projectId).where('p.id', '=', id);
      return postgres ? query.forUpdate(['p']) : query;
    });
    this.newSection = new PreparedRead(handle, 3, (db, projectId, documentationId, slug) =>
      newPageSection(db, projectId, documentationId, slug),
    );
    this.byId = new PreparedRead(handle, 2, (db, projectId, id) =>
      views(db, projectId).where('p.id', '=', id),
    );
    this.bySlug = new PreparedRead(handle, 3, (db, projectId, documentationId, slug) =>
      views(db, projectId).where('p.documentation_id', '=', documentationId).where('p.slug', '=', slug),
    );
    const sqlite = handle.dialect === 'sqlite';
    this.readById = new PreparedRead(handle, 2, (db, projectId, id) =>
      readViews(db, projectId, sqlite).where('p.id', '=', id),
    );
    this.readBySlug = new PreparedRead(handle, 3, (db, projectId, documentationId, slug) =>
      readViews(db, projectId, sqlite)
        .where('p.documentation_id', '=', documentationId)
        .where('p.slug', '=', slug),
    );
    this.titles = new PreparedRead(handle, LINK_SLOTS * 2 + 1, (db, versionId, ...slots) =>
      linkTitles(db, sqlite, versionId as number, slots as Array<string | null>),
    );
  }

  /** Where every live page of a version lies in the Git layout (Markdoc output's links). */
  pageFiles(trx: Executor | undefined, versionId: number): Promise<PageFileRow[]> {
    return versionPageFiles(trx ?? this.reader, versionId);
  }

  /** A live page of the project by id; `trx` when inside a transaction. */
  view(trx: Executor | undefined, projectId: number, id: number): Promise<PageView | undefined> {
    return this.byId.first(trx, projectId, id);
  }

  viewBySlug(
    trx: Executor | undefined,
    projectId: number,
    documentationId: number,
    slug: string,
  ): Promise<PageView | undefined> {
    return this.bySlug.first(trx, projectId, documentationId, slug);
  }

  /** As view, for an answer: on SQLite the contents come as their UTF-8 bytes. */
  readView(trx: Executor | undefined, projectId: number, id: number): Promise<PageView<Source> | undefined> {
    return this.readById.first(trx, projectId, id);
  }

  /** As viewBySlug, for an answer: on SQLite the contents come as their UTF-8 bytes. */
  readViewBySlug(
    trx: Executor | undefined,
    projectId: number,
    documentationId: number,
    slug: string,
  ): Promise<PageView<Source> | undefined> {
    return this.readBySlug.first(trx, projectId, documentationId, slug);
  }

  /**
   * As view, the page's row locked to commit on PostgreSQL (a concurrent writer of the page waits, and
   * this read sees what it wrote); on SQLite the one writer connection already runs one at a time.
   */
  lockedView(trx: Executor, projectId: number, id: number): Promise<PageView | undefined> {
    return this.lockedById.first(trx, projectId, id);
  }

  /** The section a page is created in, with what placing it needs (see NewPageSection). */
  newPageSection(
    trx: Executor,
    projectId: number,
    documentationId: number,
    slug: string,
  ): Promise<NewPageSection | undefined> {
    return this.newSection.first(trx, projectId, documentationId, slug);
  }

  /** Titles of the pages named by `${documentationSlug}/${pageSlug}` keys in one version. */
  async linkTitles(
    trx: Executor | undefined,
    versionId: number,
    keys: readonly string[],
  ): Promise<LinkTitleRow[]> {
    const rows: LinkTitleRow[] = [];
    for (let start = 0; start < keys.length; start += LINK_SLOTS) {
      const slots: Array<string | null> = [];
      for (const key of keys.slice(start, start + LINK_SLOTS)) {
        const slash = key.indexOf('/');
        slots.push(key.slice(0, slash), key.slice(slash + 1));
      }
      while (slots.length < LINK_SLOTS * 2) slots.push(null);
      rows.push(...(await this.titles.all(trx, versionId, ...slots)));
    }
    return rows;
  }
}
