import { sql, type SelectQueryBuilder } from 'kysely';
import type { Executor } from '../../db/executor.ts';

/** Which versions the listing covers; every child query applies it to its joined `versions as v`. */
export interface AllFilter {
  projectId: number;
  /** one version only, or null for all */
  versionId: number | null;
  /** the key's version scope; null for every version (an empty scope is handled before querying) */
  scope: readonly number[] | null;
  /** only what readers can see */
  published: boolean;
}

function inVersions<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  f: AllFilter,
): SelectQueryBuilder<DB, TB, O> {
  let q = qb.where(sql.ref('v.project_id'), '=', f.projectId).where(sql.ref('v.deleted_at'), 'is', null);
  if (f.versionId !== null) q = q.where(sql.ref('v.id'), '=', f.versionId);
  if (f.scope !== null) q = q.where(sql.ref('v.id'), 'in', f.scope);
  if (f.published) q = q.where(sql.ref('v.published'), '=', 1);
  return q;
}

/**
 * One query per resource kind, explicit narrow columns (never page contents or reference
 * definitions): the listing must stay fast on projects of tens of thousands of pages.
 */
export const allRepository = {
  versions(db: Executor, f: AllFilter) {
    return inVersions(
      db.selectFrom('versions as v').select(['v.id', 'v.name', 'v.slug', 'v.published', 'v.ordr']),
      f,
    ).execute();
  },

  documentation(db: Executor, f: AllFilter) {
    return inVersions(
      db
        .selectFrom('documentation as d')
        .innerJoin('versions as v', 'v.id', 'd.version_id')
        .select(['d.id', 'd.title', 'd.slug', 'd.version_id', 'd.published', 'd.ordr'])
        .where('d.deleted_at', 'is', null)
        .$if(f.published, (q) => q.where('d.published', '=', 1)),
      f,
    ).execute();
  },

  references(db: Executor, f: AllFilter) {
    return inVersions(
      db
        .selectFrom('api_references as r')
        .innerJoin('versions as v', 'v.id', 'r.version_id')
        .select(['r.id', 'r.title', 'r.slug', 'r.version_id', 'r.published', 'r.ordr'])
        .where('r.deleted_at', 'is', null)
        .$if(f.published, (q) => q.where('r.published', '=', 1)),
      f,
    ).execute();
  },

  pages(db: Executor, f: AllFilter) {
    return inVersions(
      db
        .selectFrom('pages as p')
        .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
        .innerJoin('versions as v', 'v.id', 'd.version_id')
        .select([
          'p.id',
          'p.title',
          'p.slug',
          'p.documentation_id',
          'p.listed',
          'p.updated',
          'd.slug as documentation_slug',
          'v.slug as version_slug',
        ])
        .where('p.deleted_at', 'is', null)
        .where('d.deleted_at', 'is', null)
        .$if(f.published, (q) => q.where('p.listed', '=', 1).where('d.published', '=', 1)),
      f,
    ).execute();
  },
};

export type AllVersionRow = Awaited<ReturnType<typeof allRepository.versions>>[number];
export type AllDocumentationRow = Awaited<ReturnType<typeof allRepository.documentation>>[number];
export type AllReferenceRow = Awaited<ReturnType<typeof allRepository.references>>[number];
export type AllPageRow = Awaited<ReturnType<typeof allRepository.pages>>[number];
