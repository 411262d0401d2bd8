import { sql } from 'kysely';
import { toCount, type Executor } from '../../db/executor.ts';
import { livePagesOfVersion } from '../../db/visibility.ts';

/** Source pages are looked up this many at a time. */
const CHUNK = 500;

export interface ReportPageRow {
  id: number;
  title: string;
  has_draft: number;
  listed: number;
  created: string;
  updated: string;
  source_page_id: number | null;
}

/** The user of one revision: every field null when no user's key made it. */
export interface RevisionUser {
  id: number | null;
  email: string | null;
  name: string | null;
}

export interface RevisionUsers {
  page_id: number;
  first: RevisionUser;
  last: RevisionUser;
}

export interface FeedbackCounts {
  helpful: number;
  notHelpful: number;
}

export interface SourceRow {
  id: number;
  created: string;
  source_page_id: number | null;
}

type UsersRow = {
  page_id: number;
  first_id: number | null;
  first_email: string | null;
  first_name: string | null;
  last_id: number | null;
  last_email: string | null;
  last_name: string | null;
};

const usersOf = (row: UsersRow): RevisionUsers => ({
  page_id: Number(row.page_id),
  first: {
    id: row.first_id === null ? null : Number(row.first_id),
    email: row.first_email,
    name: row.first_name,
  },
  last: {
    id: row.last_id === null ? null : Number(row.last_id),
    email: row.last_email,
    name: row.last_name,
  },
});

/** The reads of the version report (N3): pages, the users of their first and last revisions, sources. */
export const reportRepository = {
  /** The live pages of a version's live sections, in index order (contents are not read). */
  pages(db: Executor, versionId: number): Promise<ReportPageRow[]> {
    return livePagesOfVersion(db, versionId)
      .select([
        'p.id',
        'p.title',
        sql<number>`case when p.content_draft is null then 0 else 1 end`.as('has_draft'),
        'p.listed',
        'p.created',
        'p.updated',
        'p.source_page_id',
      ])
      .orderBy('d.ordr')
      .orderBy('d.id')
      .orderBy('p.position')
      .orderBy('p.id')
      .execute();
  },

  /** For each page of the version, the users of its first and its last revision. */
  async versionRevisionUsers(db: Executor, versionId: number): Promise<RevisionUsers[]> {
    const revisions = livePagesOfVersion(db, versionId)
      .innerJoin('page_history as h', 'h.page_id', 'p.id')
      .select((eb) => ['h.page_id', eb.fn.min('h.id').as('first_rev'), eb.fn.max('h.id').as('last_rev')])
      .groupBy('h.page_id');
    const { rows } = await sql<UsersRow>`
      select f.page_id,
        uf.id as first_id, uf.email as first_email, uf.name as first_name,
        ul.id as last_id, ul.email as last_email, ul.name as last_name
      from ${revisions} f
      join page_history hf on hf.id = f.first_rev
      left join users uf on uf.id = hf.user_id
      join page_history hl on hl.id = f.last_rev
      left join users ul on ul.id = hl.user_id`.execute(db);
    return rows.map(usersOf);
  },

  /** Readers' yes and no answers on each page of the version that has feedback (site.md §7). */
  async feedbackCounts(db: Executor, versionId: number): Promise<Map<number, FeedbackCounts>> {
    const rows = await db
      .selectFrom('feedback')
      .where('version_id', '=', versionId)
      .groupBy('page_id')
      .select((eb) => [
        'page_id',
        eb.fn.sum<string | number>('helpful').as('yes'),
        eb.fn.countAll<string | number>().as('answers'),
      ])
      .execute();
    return new Map(
      rows.map((r) => [
        Number(r.page_id),
        { helpful: toCount(r.yes), notHelpful: toCount(r.answers) - toCount(r.yes) },
      ]),
    );
  },

  /** Pages by id, deleted or not (a clone's source may have been deleted since), with their first revision's user. */
  async sources(db: Executor, ids: readonly number[]): Promise<Array<SourceRow & { user: RevisionUser }>> {
    const found: Array<SourceRow & { user: RevisionUser }> = [];
    for (let start = 0; start < ids.length; start += CHUNK) {
      const chunk = ids.slice(start, start + CHUNK);
      const { rows } = await sql<
        SourceRow & { user_id: number | null; email: string | null; name: string | null }
      >`
        select p.id, p.created, p.source_page_id, u.id as user_id, u.email, u.name
        from pages p
        left join page_history h on h.id = (select min(id) from page_history where page_id = p.id)
        left join users u on u.id = h.user_id
        where p.id in (${sql.join(chunk)})`.execute(db);
      for (const row of rows) {
        found.push({
          id: Number(row.id),
          created: row.created,
          source_page_id: row.source_page_id === null ? null : Number(row.source_page_id),
          user: { id: row.user_id === null ? null : Number(row.user_id), email: row.email, name: row.name },
        });
      }
    }
    return found;
  },
};
