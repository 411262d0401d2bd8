import { sql, type SelectQueryBuilder } from 'kysely';
import type { Executor } from './executor.ts';
import type {
  ApiReferencesTable,
  ChangelogPostsTable,
  DocumentationTable,
  PagesTable,
  VersionsTable,
} from './schema.ts';

/**
 * What is live (not deleted) and what readers can see, written once for every repository
 * (docs/decisions/0023-visibility.md). Queries name the content tables by one set of aliases:
 * `v` versions, `d` documentation (sections), `p` pages, `r` api_references, `cp` changelog_posts.
 * The filters are `$call`-able on any select that has their aliases; the starters begin a query
 * with its joins.
 */

/** A filter of any select whose tables include T's aliases; the constraint keeps it off others. */
type Filter<T> = <DB extends T, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
) => SelectQueryBuilder<DB, TB, O>;

type V = { v: VersionsTable };
type D = { d: DocumentationTable };
type P = { p: PagesTable };
type R = { r: ApiReferencesTable };

// Written through sql.ref: a generic query builder cannot check a column name, the constraint on
// the aliases does that for the callers.

export const liveVersion: Filter<V> = (qb) => qb.where(sql.ref('v.deleted_at'), 'is', null);
export const liveSection: Filter<D> = (qb) => qb.where(sql.ref('d.deleted_at'), 'is', null);
export const livePage: Filter<P> = (qb) => qb.where(sql.ref('p.deleted_at'), 'is', null);
export const liveReference: Filter<R> = (qb) => qb.where(sql.ref('r.deleted_at'), 'is', null);

/** A version readers can see: published. The default version is the first of these. */
export const visibleVersion: Filter<V> = (qb) => qb.where(sql.ref('v.published'), '=', 1);

/** A section readers can see: published, in a published version. */
export const visibleSection: Filter<D & V> = (qb) =>
  qb.where(sql.ref('d.published'), '=', 1).$call(visibleVersion);

/** A reference readers can see: published, in a published version. */
export const visibleReference: Filter<R & V> = (qb) =>
  qb.where(sql.ref('r.published'), '=', 1).$call(visibleVersion);

/**
 * A listed page in a section readers can see, published contents or not: what `GET /all?published=true`
 * lists. Decision 0023 says why the listing does not ask for visiblePage.
 */
export const listedPage: Filter<P & D & V> = (qb) =>
  qb.where(sql.ref('p.listed'), '=', 1).$call(visibleSection);

/** A page readers can open at its address: published contents, in a section they can see. */
export const readablePage: Filter<P & D & V> = (qb) =>
  qb.where(sql.ref('p.content_published'), 'is not', null).$call(visibleSection);

/** A page readers can see and find (search, navigation, sitemap): readable and listed. */
export const visiblePage: Filter<P & D & V> = (qb) =>
  qb.where(sql.ref('p.listed'), '=', 1).$call(readablePage);

/** A changelog post readers can see: published (posts belong to the project, not to a version). */
export const visiblePost: Filter<{ cp: ChangelogPostsTable }> = (qb) =>
  qb.where(sql.ref('cp.published'), '=', 1);

/**
 * Versions an import is still writing (decision 0020): deleted to every filter here until the import
 * releases them. Only the search index, whose entries of them exist already, needs to name them.
 */
export const stagedVersionIds = (db: Executor) =>
  db.selectFrom('versions as v').select('v.id').where('v.import_stage', 'is not', null);

/** Live versions. */
export const liveVersions = (db: Executor) => db.selectFrom('versions as v').$call(liveVersion);

/** Live sections of live versions. */
export const liveSections = (db: Executor) =>
  db
    .selectFrom('documentation as d')
    .innerJoin('versions as v', 'v.id', 'd.version_id')
    .$call(liveSection)
    .$call(liveVersion);

/** Live references of live versions. */
export const liveReferences = (db: Executor) =>
  db
    .selectFrom('api_references as r')
    .innerJoin('versions as v', 'v.id', 'r.version_id')
    .$call(liveReference)
    .$call(liveVersion);

/** Pages of any state in live sections of live versions (the trash lists the deleted ones). */
export const pagesOfLiveSections = (db: Executor) =>
  db
    .selectFrom('pages as p')
    .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
    .innerJoin('versions as v', 'v.id', 'd.version_id')
    .$call(liveSection)
    .$call(liveVersion);

/** Live pages of live sections of live versions. */
export const livePages = (db: Executor) => pagesOfLiveSections(db).$call(livePage);

/** Pages readers can see and find (visiblePage). */
export const visiblePages = (db: Executor) => livePages(db).$call(visiblePage);

/**
 * Live pages of the live sections of one version, which the caller has found live: without the
 * join to versions, so that the read stays within the section's rows of pages_listing_idx.
 */
export const livePagesOfVersion = (db: Executor, versionId: number) =>
  db
    .selectFrom('pages as p')
    .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
    .where('d.version_id', '=', versionId)
    .$call(liveSection)
    .$call(livePage);

/** Live sections of one version, which the caller has found live. */
export const liveSectionsOfVersion = (db: Executor, versionId: number) =>
  db.selectFrom('documentation as d').where('d.version_id', '=', versionId).$call(liveSection);

/** Live references of one version, which the caller has found live. */
export const liveReferencesOfVersion = (db: Executor, versionId: number) =>
  db.selectFrom('api_references as r').where('r.version_id', '=', versionId).$call(liveReference);
