import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from '../../db/dialect.ts';
import { toCount, type Executor } from '../../db/executor.ts';
import { liveSections, stagedVersionIds } from '../../db/visibility.ts';
import { fts5Expressions, tsQuery, type ParsedQuery } from './search.query.ts';

export interface SearchFilter {
  projectId: number;
  /** the versions to search: one, those a key is limited to, or null for all */
  versionIds: readonly number[] | null;
  /** the sections to search (their pages only, no reference operations), or null for all */
  documentationIds: readonly number[] | null;
  /**
   * whether changelog posts are searched too: they belong to the project, not to a version or a
   * section, so they are outside any version or section named, but within a key's version scope
   */
  posts: boolean;
}

export interface MatchedEntry {
  id: number;
  section_type: 'doc' | 'ref' | 'changelog';
  /** null for a changelog post */
  version_slug: string | null;
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
/**
 * What PostgreSQL's index reads as spaces (migration 0012): ASCII's punctuation. Highlights are made
 * on the text so translated, one character for one, and put back on the stored text.
 */
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const SPACES = ' '.repeat(PUNCTUATION.length);

/** Posts are searched unless a section is named: sections hold pages only. */
const searchesPosts = (filter: SearchFilter): boolean => filter.posts && filter.documentationIds === null;

/**
 * The filter as an FTS5 expression over the entries' scope tokens: p<project>, v<version>, d<section>
 * (r for a reference's operation), c for a changelog post. Null: nothing can match.
 */
const scopeTokens = (filter: SearchFilter): string | null => {
  const any = (prefix: string, ids: readonly number[]) =>
    `scope : (${ids.map((id) => `"${prefix}${Math.trunc(id)}"`).join(' OR ')})`;
  const { versionIds, documentationIds } = filter;
  const posts = searchesPosts(filter);
  const parts = [`scope : "p${Math.trunc(filter.projectId)}"`];
  if (documentationIds !== null) {
    if (documentationIds.length === 0) return null;
    parts.push(any('d', documentationIds));
  }
  if (versionIds !== null) {
    const within = [
      ...(versionIds.length > 0 ? [any('v', versionIds)] : []),
      ...(posts ? ['scope : "c"'] : []),
    ];
    if (within.length === 0) return null;
    parts.push(`(${within.join(' OR ')})`);
  }
  const scope = parts.join(' AND ');
  // A version or section token already leaves posts out; the project's token alone does not.
  return posts || versionIds !== null || documentationIds !== null ? scope : `(${scope}) NOT scope : "c"`;
};

/** The same filter in SQL over search_entries `e`; null: nothing can match. */
function pgConditions(filter: SearchFilter): RawBuilder<unknown> | null {
  const { versionIds, documentationIds } = filter;
  const posts = searchesPosts(filter);
  const within = (column: 'e.version_id' | 'e.documentation_id', ids: readonly number[]) =>
    sql`${sql.ref(column)} in (${sql.join(ids.map((id) => sql`${id}`))})`;
  const parts: RawBuilder<unknown>[] = [sql`e.project_id = ${filter.projectId}`];
  if (documentationIds !== null) {
    if (documentationIds.length === 0) return null;
    parts.push(within('e.documentation_id', documentationIds));
  }
  if (versionIds !== null) {
    const alternatives = [
      ...(versionIds.length > 0 ? [within('e.version_id', versionIds)] : []),
      ...(posts ? [sql`e.changelog_post_id is not null`] : []),
    ];
    if (alternatives.length === 0) return null;
    parts.push(sql`(${sql.join(alternatives, sql` or `)})`);
  }
  if (!posts) parts.push(sql`e.changelog_post_id is null`);
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

  /** The live sections of a project with this slug, in the versions given (null: any). */
  sectionIds(db: Executor, projectId: number, slug: string, versionIds: readonly number[] | null) {
    let sections = liveSections(db)
      .select('d.id')
      .where('v.project_id', '=', projectId)
      .where('d.slug', '=', slug);
    if (versionIds !== null)
      sections = sections.where('v.id', 'in', versionIds.length > 0 ? versionIds : [0]);
    return sections.execute();
  }

  async search(
    db: Executor,
    query: ParsedQuery,
    filter: SearchFilter,
    limit: number,
    offset: number,
  ): Promise<SearchPage> {
    if (this.dialect === 'sqlite') {
      const scope = scopeTokens(filter);
      return scope === null ? { total: 0, entries: [] } : this.searchSqlite(db, query, scope, limit, offset);
    }
    const conditions = pgConditions(filter);
    return conditions === null
      ? { total: 0, entries: [] }
      : this.searchPostgres(db, query, conditions, limit, offset);
  }

  private async searchSqlite(
    db: Executor,
    query: ParsedQuery,
    scope: string,
    limit: number,
    offset: number,
  ): Promise<SearchPage> {
    const { required, titles, excluded } = fts5Expressions(query);
    const without = excluded === null ? '' : ` NOT (${excluded})`;
    // The entries of versions an import is still writing, hidden until it ends (decision 0020).
    const notStaged = sql`search_fts.rowid not in (
      select e.id from search_entries e where e.version_id in (${stagedVersionIds(db)}))`;
    const all = `(${scope}) AND ((${required})${without})`;
    const titled = `(${scope}) AND ((${titles})${without})`;
    const rest = `(${all}) NOT (${titles})`;
    const count = async (match: string) =>
      toCount(
        (
          await sql<{
            n: number;
          }>`select count(*) as n from search_fts where search_fts match ${match} and ${notStaged}`.execute(
            db,
          )
        ).rows[0]?.n,
      );
    const ranked = async (match: string, take: number, skip: number) =>
      take <= 0
        ? []
        : (
            await sql<{ id: number }>`
              select rowid as id from search_fts where search_fts match ${match} and ${notStaged}
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
    conditions: RawBuilder<unknown>,
    limit: number,
    offset: number,
  ): Promise<SearchPage> {
    const tsquery = sql`to_tsquery('english', ${tsQuery(query)})`;
    const counted = await sql<{ n: string }>`
      select count(*) as n from search_entries e
      where e.document @@ ${tsquery} and ${conditions}`.execute(db);
    const total = toCount(counted.rows[0]?.n);
    if (offset >= total) return { total, entries: [] };
    const options = `HighlightAll=true, StartSel=${START}, StopSel=${STOP}`;
    const words = (text: RawBuilder<unknown>) => sql`translate(${text}, ${PUNCTUATION}, ${SPACES})`;
    const { rows } = await sql<MatchedEntry>`
      select e.id, e.section_type, e.version_slug, e.section, e.page, e.page_id, e.fragment, e.title,
        e.content, ts_headline('english', ${words(sql`e.title`)}, e.q, ${options}) as title_marked,
        ts_headline('english', ${words(sql`e.content`)}, e.q, ${options}) as content_marked
      from (
        select e.*, q, e.title_document @@ q as titled, ts_rank(${RANK_WEIGHTS}::float4[], e.document, q) as rank
        from search_entries e, ${tsquery} q
        where e.document @@ q and ${conditions}
        order by titled desc, rank desc, e.id
        limit ${limit} offset ${offset}
      ) e
      order by e.titled desc, e.rank desc, e.id`.execute(db);
    const entries = rows.map((row) => ({
      ...row,
      title_marked: marksOnto(row.title_marked, row.title),
      content_marked: marksOnto(row.content_marked, row.content),
    }));
    return { total, entries };
  }
}

/**
 * The marks of a highlight made on the translated text, put on the stored text: the two are as long
 * as each other, character for character, and differ only where the stored text has punctuation.
 * Should the lengths differ (a headline that changed the text otherwise), the stored text unmarked.
 */
function marksOnto(marked: string, text: string): string {
  let out = '';
  let at = 0;
  let from = 0;
  for (let i = 0; i <= marked.length; i++) {
    const char = marked[i];
    if (i < marked.length && char !== START && char !== STOP) continue;
    out += text.slice(at, at + i - from);
    at += i - from;
    if (char !== undefined) out += char;
    from = i + 1;
  }
  return at === text.length ? out : text;
}
