import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { SearchEntriesTable } from '../../db/schema.ts';
import {
  liveReferences,
  visiblePages as readerPages,
  visiblePost,
  visibleReference,
} from '../../db/visibility.ts';

// The search index's statements: what readers can see, read to derive the entries, and the entries'
// writes (search.indexer.ts says when each runs). Searching the index is search.repository.ts.

/** What one replacement of entries covers: a page, a reference, a post, a version, a project. */
export type IndexScope = 'page_id' | 'reference_id' | 'changelog_post_id' | 'version_id' | 'project_id';

/** The pages readers can see and find (db/visibility.ts), with what their entries say. */
const visiblePages = (db: Executor) =>
  readerPages(db)
    .innerJoin('projects as pr', 'pr.id', 'v.project_id')
    .select([
      'p.id',
      'p.title',
      'p.slug',
      'p.content_published',
      'p.documentation_id',
      'd.slug as section',
      'v.id as version_id',
      'v.slug as version_slug',
      'v.project_id',
      'pr.variables',
    ])
    .orderBy('p.id');

export type VisiblePage = Awaited<ReturnType<ReturnType<typeof visiblePages>['execute']>>[number];

/**
 * Live, published references of published versions. On SQLite the definition comes as its stored
 * UTF-8 bytes (a copy; decoding megabytes into a string would hold the event loop), for the thread
 * that reads its operations.
 */
const visibleReferences = (db: Executor, sqlite: boolean) =>
  liveReferences(db)
    .$call(visibleReference)
    .select([
      'r.id',
      'r.slug',
      sqlite
        ? sql<Uint8Array | null>`cast(r.definition_published as blob)`.as('definition')
        : sql<string | null>`r.definition_published`.as('definition'),
      'r.format_published',
      'v.id as version_id',
      'v.slug as version_slug',
      'v.project_id',
    ])
    // A published reference always has its definition; the index is made from it, so it is asked for.
    .where('r.definition_published', 'is not', null)
    .orderBy('r.id');

/**
 * Published posts of changelogs, with their changelog's slug and project. Posts belong to the
 * project, not to a version: their entries carry no version, and `section` is the changelog's slug.
 */
const visiblePosts = (db: Executor) =>
  db
    .selectFrom('changelog_posts as cp')
    .innerJoin('changelogs as c', 'c.id', 'cp.changelog_id')
    .innerJoin('projects as pr', 'pr.id', 'c.project_id')
    .select([
      'cp.id',
      'cp.title',
      'cp.slug',
      'cp.content',
      'c.slug as changelog',
      'c.project_id',
      'pr.variables',
    ])
    .$call(visiblePost)
    .orderBy('cp.id');

export type VisiblePost = Awaited<ReturnType<ReturnType<typeof visiblePosts>['execute']>>[number];

export const searchIndexRepository = {
  pages: (db: Executor, column: 'p.id' | 'v.id' | 'v.project_id', id: number) =>
    visiblePages(db).where(column, '=', id).execute(),

  /** Some pages by id (at most a few hundred: one statement's parameters). */
  pagesIn: (db: Executor, ids: readonly number[]) => visiblePages(db).where('p.id', 'in', ids).execute(),

  references: (db: Executor, sqlite: boolean, column: 'r.id' | 'v.id' | 'v.project_id', id: number) =>
    visibleReferences(db, sqlite).where(column, '=', id).execute(),

  posts: (db: Executor, column: 'cp.id' | 'c.project_id', id: number) =>
    visiblePosts(db).where(column, '=', id).execute(),

  /** The projects to index: one, or every one, by id. */
  projectIds: (db: Executor, projectId?: number) => {
    let query = db.selectFrom('projects').select('id').orderBy('id');
    if (projectId !== undefined) query = query.where('id', '=', projectId);
    return query.execute();
  },

  entryIds: (db: Executor, scope: IndexScope, id: number) =>
    db.selectFrom('search_entries').select('id').where(scope, '=', id).execute(),

  /** The entries of a project's pages and posts (not its references'). */
  textEntryIds: (db: Executor, projectId: number) =>
    db
      .selectFrom('search_entries')
      .select('id')
      .where('project_id', '=', projectId)
      .where('reference_id', 'is', null)
      .execute(),

  /** The delete of a scope's entries, for the caller to run or to queue with a change's writes. */
  deletion: (db: Executor, scope: IndexScope, id: number) =>
    db.deleteFrom('search_entries').where(scope, '=', id),

  deleteTextEntries: (db: Executor, projectId: number) =>
    db
      .deleteFrom('search_entries')
      .where('project_id', '=', projectId)
      .where('reference_id', 'is', null)
      .execute(),

  /** The insert of some entries, for the caller to run or to queue with a change's writes. */
  insertion: (db: Executor, entries: Array<Insertable<SearchEntriesTable>>) =>
    db.insertInto('search_entries').values(entries),

  insertReturningIds: (db: Executor, entries: Array<Insertable<SearchEntriesTable>>) =>
    db.insertInto('search_entries').values(entries).returning('id').execute(),

  /** SQLite: the FTS rows of a page's entries, in one statement. */
  removePageFts: (db: Executor, pageId: number) =>
    sql`delete from search_fts where rowid in (
        select id from search_entries where page_id = ${pageId})`.execute(db),

  /** SQLite: the FTS rows of some pages' entries, in one statement. */
  removePagesFts: (db: Executor, pageIds: readonly number[]) =>
    sql`delete from search_fts where rowid in (
        select id from search_entries where page_id in (${sql.join(pageIds.map((id) => sql`${id}`))}))`.execute(
      db,
    ),

  /** The entries of some pages. */
  deletePages: (db: Executor, pageIds: readonly number[]) =>
    db.deleteFrom('search_entries').where('page_id', 'in', pageIds).execute(),

  /** SQLite: the FTS rows of some entries. */
  removeFts: (db: Executor, rows: ReadonlyArray<{ id: number }>) => {
    const ids = rows.map((row) => sql`${row.id}`);
    return sql`delete from search_fts where rowid in (${sql.join(ids)})`.execute(db);
  },

  /**
   * SQLite: the words of the entries with ids from `first` to `last`, under the same ids. The scope
   * is p<project>, then v<version> d<section> for a page, v<version> r for a reference's operation,
   * c for a changelog post (no version): see SearchRepository's filters.
   */
  insertFts: (db: Executor, first: number, last: number) =>
    sql`insert into search_fts (rowid, title, content, scope)
        select id, title, content,
          'p' || project_id || coalesce(' v' || version_id, '') || ' ' ||
          case when section_type = 'changelog' then 'c' else coalesce('d' || documentation_id, 'r') end
        from search_entries where id between ${first} and ${last}`.execute(db),
};
