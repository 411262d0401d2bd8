import { PostgresAdapter, sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { toCount, type Executor } from '../../db/executor.ts';

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

/** The pages the filter keeps, joined to their section and version. */
function pagesOf(db: Executor, f: AllFilter) {
  return inVersions(
    db
      .selectFrom('pages as p')
      .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
      .innerJoin('versions as v', 'v.id', 'd.version_id')
      .where('p.deleted_at', 'is', null)
      .where('d.deleted_at', 'is', null)
      .$if(f.published, (q) => q.where('p.listed', '=', 1).where('d.published', '=', 1)),
    f,
  );
}

/**
 * One query per resource kind, explicit narrow columns (never page contents or reference
 * definitions): the listing must stay fast on projects of a hundred thousand pages. Rows come in no
 * particular order; the presenter sorts them.
 */
export const allRepository = {
  /**
   * Where the project's audit log stands: its last entry and how many there are. Every change to a
   * version, section, reference or page writes an entry in its own transaction (src/events/), so
   * this moves whenever anything the listing holds may have changed, read in the same snapshot as
   * the listing. The count is there for PostgreSQL, where ids are taken before commit: a change that
   * took a lower id than one committed before it would not move the maximum. Both come from one walk
   * of the (project_id, id) index.
   */
  async auditPosition(db: Executor, projectId: number): Promise<string> {
    const row = await db
      .selectFrom('audit_log')
      .select((eb) => [eb.fn.max('id').as('last'), eb.fn.countAll().as('entries')])
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return `${toCount(row?.last)}:${toCount(row?.entries)}`;
  },

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

  /**
   * The page dictionary's members as JSON text (`"<id>":{…},…` in id order; '' for none), written
   * by the database. One string crosses into JavaScript instead of six values for each of 100,000
   * rows: on SQLite about 140 ms of CPU against 350 ms for reading the rows and writing them in
   * JavaScript; on PostgreSQL the server process spent 144 ms instead of 692 ms a request, and held
   * 311 MiB at most instead of 706 (bench/all.bench.ts). Each member has the fields of AllPageSchema
   * in its order; every text goes through the database's JSON quoting (json_quote, to_json), which
   * escapes as JSON.stringify does; numbers are integer columns and booleans literals. The filter is
   * the documentation query's; the page columns read are all in pages_listing_idx.
   */
  async pagesJson(db: Executor, f: AllFilter): Promise<string> {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    const quote = (value: Expression<string>): RawBuilder<string> =>
      postgres ? sql<string>`to_json(${value})::text` : sql<string>`json_quote(${value})`;
    const p = (column: 'id' | 'title' | 'slug' | 'documentation_id' | 'listed' | 'updated') =>
      sql.ref<string>(`p.${column}`);
    const member = sql<string>`'"' || ${p('id')} || '":{"title":' || ${quote(p('title'))}
      || ',"slug":' || ${quote(p('slug'))}
      || ',"path":' || ${quote(sql<string>`${sql.ref('v.slug')} || '/' || ${sql.ref('d.slug')} || '/' || ${p('slug')}`)}
      || ',"documentationId":' || ${p('documentation_id')}
      || ',"listed":' || (case when ${p('listed')} = 1 then 'true' else 'false' end)
      || ',"updated":' || ${quote(sql<string>`substr(${p('updated')}, 1, 19) || '+0000'`)} || '}'`;
    const rows = pagesOf(db, f)
      .select(['p.id', member.as('member')])
      .$if(!postgres, (q) => q.orderBy('p.id'));
    // PostgreSQL orders the aggregate's input as told. SQLite's group_concat joins the rows of an
    // ordered subquery in its order (the subquery runs as a co-routine feeding the aggregate); its
    // `group_concat(… order by …)` says so explicitly but took twice as long on 100,000 pages.
    // test/all.test.ts checks the order of the text on both.
    const members = postgres
      ? sql<string | null>`string_agg(${sql.ref('m.member')}, ',' order by ${sql.ref('m.id')})`
      : sql<string | null>`group_concat(${sql.ref('m.member')}, ',')`;
    const row = await db.selectFrom(rows.as('m')).select(members.as('members')).executeTakeFirst();
    return row?.members ?? '';
  },
};

export type AllVersionRow = Awaited<ReturnType<typeof allRepository.versions>>[number];
export type AllDocumentationRow = Awaited<ReturnType<typeof allRepository.documentation>>[number];
export type AllReferenceRow = Awaited<ReturnType<typeof allRepository.references>>[number];
