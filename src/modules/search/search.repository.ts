import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from '../../db/dialect.ts';
import { toCount, type Executor } from '../../db/executor.ts';
import { fts5Expressions, tsQuery, type ParsedQuery } from './search.query.ts';

export interface SearchFilter {
  projectId: number;
  /** the versions to search: one, those a key is limited to, or null for all */
  versionIds: readonly number[] | null;
  /** the sections to search (their pages only, no reference operations), or null for all */
  documentationIds: readonly number[] | null;
}

export interface MatchedEntry {
  id: number;
  section_type: 'doc' | 'ref';
  version_slug: string;
  section: string;
  page: string;
  page_id: number | null;
  fragment: string;
  title: string;
  content: string;
  /** the title and the content with each matched word between \u0001 and \u0002 */
  title_marked: string;
  content_marked: string;
}

export interface SearchPage {
  /** every match */
  total: number;
  entries: MatchedEntry[];
}

/** bm25's weights for title, content and the scope tokens. */
const BM25 = sql`bm25(search_fts, 10.0, 1.0, 0.0)`;
/** ts_rank's weights for D, C, B (content) and A (title) lexemes, in that order. */
const RANK_WEIGHTS = '{0, 0, 0.1, 1}';
const START = '\u0001';
const STOP = '\u0002';

/** The entry's scope as FTS5 tokens: p<project> v<version> d<section> (or r for a reference). */
const scopeTokens = (filter: SearchFilter): string => {
  const any = (prefix: string, ids: readonly number[]) =>
    `scope : (${ids.map((id) => `"${prefix}${Math.trunc(id)}"`).join(' OR ')})`;
  const parts = [`scope : "p${Math.trunc(filter.projectId)}"`];
  if (filter.versionIds !== null) parts.push(any('v', filter.versionIds));
  if (filter.documentationIds !== null) parts.push(any('d', filter.documentationIds));
  return parts.join(' AND ');
};

function pgConditions(filter: SearchFilter): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`e.project_id = ${filter.projectId}`];
  const within = (column: 'e.version_id' | 'e.documentation_id', ids: readonly number[]) =>
    sql`${sql.ref(column)} in (${sql.join(ids.map((id) => sql`${id}`))})`;
  if (filter.versionIds !== null) parts.push(within('e.version_id', filter.versionIds));
  if (filter.documentationIds !== null) parts.push(within('e.documentation_id', filter.documentationIds));
  return sql.join(parts, sql` and `);
}

/**
 * The two engines behind one search: SQLite's FTS5 and PostgreSQL's text search. On both, entries
 * whose title matches every required term come first, each group by rank (bm25; ts_rank over the
 * weighted document), ties in the order indexed.
 *
 * On SQLite the filters are tokens of an indexed `scope` column, so that counting and ranking never
 * leave the full-text index; the titled group is ranked on its own, and the rest only when a page
 * reaches past it, since ranking every match of a common word is what costs.
 */
export class SearchRepository {
  constructor(private readonly dialect: DialectName) {}

  async search(
    db: Executor,
    query: ParsedQuery,
    filter: SearchFilter,
    limit: number,
    offset: number,
  ): Promise<SearchPage> {
    if ((filter.versionIds?.length ?? 1) === 0 || (filter.documentationIds?.length ?? 1) === 0) {
      return { total: 0, entries: [] };
    }
    return this.dialect === 'sqlite'
      ? this.searchSqlite(db, query, filter, limit, offset)
      : this.searchPostgres(db, query, filter, limit, offset);
  }

  private async searchSqlite(
    db: Executor,
    query: ParsedQuery,
    filter: SearchFilter,
    limit: number,
    offset: number,
  ): Promise<SearchPage> {
    const { required, titles, excluded } = fts5Expressions(query);
    const scope = scopeTokens(filter);
    const without = excluded === null ? '' : ` NOT (${excluded})`;
    const all = `(${scope}) AND ((${required})${without})`;
    const titled = `(${scope}) AND ((${titles})${without})`;
    const rest = `(${all}) NOT (${titles})`;
    const count = async (match: string) =>
      toCount(
        (
          await sql<{
            n: number;
          }>`select count(*) as n from search_fts where search_fts match ${match}`.execute(db)
        ).rows[0]?.n,
      );
    const ranked = async (match: string, take: number, skip: number) =>
      take <= 0
        ? []
        : (
            await sql<{ id: number }>`
              select rowid as id from search_fts where search_fts match ${match}
              order by ${BM25}, rowid limit ${take} offset ${skip}`.execute(db)
          ).rows.map((row) => row.id);

    const total = await count(all);
    if (offset >= total) return { total, entries: [] };
    const titledTotal = await count(titled);
    const ids = [
      ...(await ranked(titled, Math.min(limit, titledTotal - offset), offset)),
      ...(await ranked(
        rest,
        Math.min(limit, offset + limit - titledTotal),
        Math.max(0, offset - titledTotal),
      )),
    ];
    if (ids.length === 0) return { total, entries: [] };
    const { rows } = await sql<MatchedEntry>`
      select e.id, e.section_type, e.version_slug, e.section, e.page, e.page_id, e.fragment, e.title,
        e.content, highlight(search_fts, 0, ${START}, ${STOP}) as title_marked,
        highlight(search_fts, 1, ${START}, ${STOP}) as content_marked
      from search_fts join search_entries e on e.id = search_fts.rowid
      where search_fts match ${all} and search_fts.rowid in (${sql.join(ids.map((id) => sql`${id}`))})`.execute(
      db,
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return { total, entries: ids.flatMap((id) => byId.get(id) ?? []) };
  }

  private async searchPostgres(
    db: Executor,
    query: ParsedQuery,
    filter: SearchFilter,
    limit: number,
    offset: number,
  ): Promise<SearchPage> {
    const tsquery = sql`to_tsquery('english', ${tsQuery(query)})`;
    const counted = await sql<{ n: string }>`
      select count(*) as n from search_entries e
      where e.document @@ ${tsquery} and ${pgConditions(filter)}`.execute(db);
    const total = toCount(counted.rows[0]?.n);
    if (offset >= total) return { total, entries: [] };
    const options = `HighlightAll=true, StartSel=${START}, StopSel=${STOP}`;
    const { rows } = await sql<MatchedEntry>`
      select e.id, e.section_type, e.version_slug, e.section, e.page, e.page_id, e.fragment, e.title,
        e.content, ts_headline('english', e.title, e.q, ${options}) as title_marked,
        ts_headline('english', e.content, e.q, ${options}) as content_marked
      from (
        select e.*, q, e.title_document @@ q as titled, ts_rank(${RANK_WEIGHTS}::float4[], e.document, q) as rank
        from search_entries e, ${tsquery} q
        where e.document @@ q and ${pgConditions(filter)}
        order by titled desc, rank desc, e.id
        limit ${limit} offset ${offset}
      ) e
      order by e.titled desc, e.rank desc, e.id`.execute(db);
    return { total, entries: rows };
  }
}
