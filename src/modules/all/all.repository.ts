import { PostgresAdapter, sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { toCount, type Executor } from '../../db/executor.ts';
import {
  listedPage,
  livePages,
  liveReferences,
  liveSections,
  liveVersions,
  visibleReference,
  visibleSection,
  visibleVersion,
} from '../../db/visibility.ts';

/** Which versions the listing covers; every child query applies it to its joined live `versions as v`. */
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
  let q = qb.where(sql.ref('v.project_id'), '=', f.projectId);
  if (f.versionId !== null) q = q.where(sql.ref('v.id'), '=', f.versionId);
  if (f.scope !== null) q = q.where(sql.ref('v.id'), 'in', f.scope);
  return q;
}

/** Page ids from `from` up to, not including, `below`; null leaves that end open. */
export interface PageIdRange {
  from: number | null;
  below: number | null;
}

export const EVERY_PAGE: PageIdRange = { from: null, below: null };

/**
 * The pages the filter keeps within the id range, joined to their section and version. Published:
 * listed pages, not visible ones; the published contents are not in pages_listing_idx (decision 0023).
 */
function pagesOf(db: Executor, f: AllFilter, range: PageIdRange) {
  return inVersions(
    livePages(db)
      .$if(f.published, listedPage)
      .$if(range.from !== null, (q) => q.where('p.id', '>=', range.from ?? 0))
      .$if(range.below !== null, (q) => q.where('p.id', '<', range.below ?? 0)),
    f,
  );
}

// What pg_export_snapshot() returns (`00000003-0000001B-1`); checked before it is written into SET
// TRANSACTION SNAPSHOT, which takes no parameters.
const SNAPSHOT_ID = /^[0-9A-F]+(-[0-9A-F]+)+$/i;

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

  /**
   * The lowest and highest page id of the whole table (every project, deleted pages too): the two
   * ends of the primary key's index, read without touching the rows. Null when there are no pages.
   */
  async pageIdSpan(db: Executor): Promise<{ first: number; last: number } | null> {
    const row = await db
      .selectFrom('pages')
      .select((eb) => [eb.fn.min('id').as('first'), eb.fn.max('id').as('last')])
      .executeTakeFirst();
    if (row?.first == null || row.last == null) return null;
    return { first: Number(row.first), last: Number(row.last) };
  },

  /** PostgreSQL: names the snapshot of the open transaction, for other transactions to take up. */
  async exportSnapshot(trx: Executor): Promise<string> {
    const { rows } = await sql<{ id: string }>`select pg_export_snapshot() as id`.execute(trx);
    const id = rows[0]?.id ?? '';
    if (!SNAPSHOT_ID.test(id)) throw new Error(`Unexpected snapshot id '${id}'`);
    return id;
  },

  /**
   * PostgreSQL: makes a repeatable-read transaction see the exported snapshot; the first statement
   * of that transaction.
   */
  async importSnapshot(trx: Executor, id: string): Promise<void> {
    if (!SNAPSHOT_ID.test(id)) throw new Error(`Unexpected snapshot id '${id}'`);
    await sql`set transaction snapshot ${sql.lit(id)}`.execute(trx);
  },

  versions(db: Executor, f: AllFilter) {
    return inVersions(
      liveVersions(db)
        .select(['v.id', 'v.name', 'v.slug', 'v.published', 'v.ordr'])
        .$if(f.published, visibleVersion),
      f,
    ).execute();
  },

  documentation(db: Executor, f: AllFilter) {
    return inVersions(
      liveSections(db)
        .select(['d.id', 'd.title', 'd.slug', 'd.version_id', 'd.published', 'd.ordr'])
        .$if(f.published, visibleSection),
      f,
    ).execute();
  },

  references(db: Executor, f: AllFilter) {
    return inVersions(
      liveReferences(db)
        .select(['r.id', 'r.title', 'r.slug', 'r.version_id', 'r.published', 'r.ordr'])
        .$if(f.published, visibleReference),
      f,
    ).execute();
  },

  /**
   * The page dictionary's members as JSON text (`"<id>":{…},…` in id order; '' for none), written
   * by the database. One string crosses into JavaScript instead of six values for each of 100,000
   * rows: on SQLite about 140 ms of CPU against 350 ms for reading the rows and writing them in
   * JavaScript; on PostgreSQL the server process spent 144 ms instead of 692 ms a request, and held
   * 311 MiB at most instead of 706 (bench/all.bench.ts). Each member has the fields of AllPageSchema
   * in its order; every text is quoted as JSON.stringify quotes it; numbers are integer columns and
   * booleans literals. The filter is the documentation query's; the page columns read are all in
   * pages_listing_idx.
   *
   * SQLite quotes with json_quote. PostgreSQL's to_json looks up how to write its argument's type
   * on every call, a third of the database's CPU for 100,000 pages; replace() escapes quotes and
   * backslashes for a fifth of that, and no other character is escaped but the control characters
   * (U+0000-U+001F, never in the JSON around the texts). A text holding one is rare: that range is
   * written again through to_json.
   */
  async pagesJson(db: Executor, f: AllFilter, range: PageIdRange = EVERY_PAGE): Promise<string> {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return members(db, f, range, 'json_quote');
    const text = await members(db, f, range, 'replace');
    return CONTROL_CHARACTER.test(text) ? members(db, f, range, 'to_json') : text;
  },
};

// eslint-disable-next-line no-control-regex -- what to_json escapes and replace() does not
const CONTROL_CHARACTER = /[\u0000-\u001f]/;

/** How texts are quoted: json_quote (SQLite), to_json or replace (PostgreSQL). */
type Quoting = 'json_quote' | 'to_json' | 'replace';

async function members(db: Executor, f: AllFilter, range: PageIdRange, quoting: Quoting): Promise<string> {
  const quote = (value: Expression<string>): RawBuilder<string> => {
    switch (quoting) {
      case 'json_quote':
        return sql<string>`json_quote(${value})`;
      case 'to_json':
        return sql<string>`to_json(${value})::text`;
      case 'replace':
        // Escape-string literals: one backslash, two, and a backslash before a quote, whatever
        // standard_conforming_strings says.
        return sql<string>`'"' || replace(replace(${value}, E'\\\\', E'\\\\\\\\'), '"', E'\\\\"') || '"'`;
    }
  };
  const p = (column: 'id' | 'title' | 'slug' | 'documentation_id' | 'listed' | 'updated') =>
    sql.ref<string>(`p.${column}`);
  const member = sql<string>`'"' || ${p('id')} || '":{"title":' || ${quote(p('title'))}
    || ',"slug":' || ${quote(p('slug'))}
    || ',"path":' || ${quote(sql<string>`${sql.ref('v.slug')} || '/' || ${sql.ref('d.slug')} || '/' || ${p('slug')}`)}
    || ',"documentationId":' || ${p('documentation_id')}
    || ',"listed":' || (case when ${p('listed')} = 1 then 'true' else 'false' end)
    || ',"updated":' || ${quote(sql<string>`substr(${p('updated')}, 1, 19) || '+0000'`)} || '}'`;
  const sqlite = quoting === 'json_quote';
  const rows = pagesOf(db, f, range)
    .select(['p.id', member.as('member')])
    .$if(sqlite, (q) => q.orderBy('p.id'));
  // PostgreSQL orders the aggregate's input as told. SQLite's group_concat joins the rows of an
  // ordered subquery in its order (the subquery runs as a co-routine feeding the aggregate); its
  // `group_concat(… order by …)` says so explicitly but took twice as long on 100,000 pages.
  // test/all.test.ts checks the order of the text on both.
  const aggregate = sqlite
    ? sql<string | null>`group_concat(${sql.ref('m.member')}, ',')`
    : sql<string | null>`string_agg(${sql.ref('m.member')}, ',' order by ${sql.ref('m.id')})`;
  const row = await db.selectFrom(rows.as('m')).select(aggregate.as('members')).executeTakeFirst();
  return row?.members ?? '';
}

export type AllVersionRow = Awaited<ReturnType<typeof allRepository.versions>>[number];
export type AllDocumentationRow = Awaited<ReturnType<typeof allRepository.documentation>>[number];
export type AllReferenceRow = Awaited<ReturnType<typeof allRepository.references>>[number];
