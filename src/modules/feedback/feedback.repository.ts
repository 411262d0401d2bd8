import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { toCount } from '../../db/executor.ts';
import { livePages, readablePage } from '../../db/visibility.ts';

export interface FeedbackRow {
  id: number;
  page_id: number;
  version_id: number;
  helpful: number;
  message: string | null;
  created: string;
}

/** Whose feedback a list reads: a project's, one page's, and the versions a key reaches (null: all). */
export interface FeedbackFilter {
  projectId: number;
  pageId: number | null;
  versions: readonly number[] | null;
}

/** What a reader sent, and which page of which project it is about. */
export interface NewFeedback {
  projectId: number;
  pageId: number;
  helpful: boolean;
  message: string | null;
  created: string;
}

/** Feedback of live pages of live sections and versions: deleted pages' feedback is read by nothing. */
const matching = (db: Executor, filter: FeedbackFilter) => {
  let query = livePages(db)
    .innerJoin('feedback as f', 'f.page_id', 'p.id')
    .where('f.project_id', '=', filter.projectId)
    .where('v.project_id', '=', filter.projectId);
  if (filter.pageId !== null) query = query.where('f.page_id', '=', filter.pageId);
  const versions = filter.versions;
  if (versions !== null) {
    query = versions.length === 0 ? query.where(sql.lit(false)) : query.where('f.version_id', 'in', versions);
  }
  return query;
};

export const feedbackRepository = {
  /**
   * Stores feedback on a page when readers can read it on the site (readablePage, listed or not),
   * in one statement, so that a page deleted or unpublished meanwhile takes none. False when none was
   * stored.
   */
  async insertIfVisible(db: Executor, row: NewFeedback): Promise<boolean> {
    const source = livePages(db)
      .$call(readablePage)
      .where('p.id', '=', row.pageId)
      .where('v.project_id', '=', row.projectId)
      .select((eb) => [
        eb.val(row.projectId).as('project_id'),
        'v.id as version_id',
        'p.id as page_id',
        eb.val(row.helpful ? 1 : 0).as('helpful'),
        eb.val(row.message).as('message'),
        eb.val(row.created).as('created'),
      ]);
    const result = await db
      .insertInto('feedback')
      .columns(['project_id', 'version_id', 'page_id', 'helpful', 'message', 'created'])
      .expression(source)
      .executeTakeFirst();
    return toCount(result.numInsertedOrUpdatedRows) > 0;
  },

  /** A live page of the project, with its version; undefined when there is none. */
  livePage(db: Executor, projectId: number, pageId: number) {
    return livePages(db)
      .where('p.id', '=', pageId)
      .where('v.project_id', '=', projectId)
      .select(['p.id', 'v.id as version_id'])
      .executeTakeFirst();
  },

  /** Newest first by id, which only grows: a cursor of "ids below N" stays stable as feedback arrives. */
  page(db: Executor, filter: FeedbackFilter, beforeId: number | null, limit: number): Promise<FeedbackRow[]> {
    let query = matching(db, filter).select([
      'f.id',
      'f.page_id',
      'f.version_id',
      'f.helpful',
      'f.message',
      'f.created',
    ]);
    if (beforeId !== null) query = query.where('f.id', '<', beforeId);
    return query.orderBy('f.id', 'desc').limit(limit).execute();
  },

  async total(db: Executor, filter: FeedbackFilter): Promise<number> {
    const row = await matching(db, filter)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return toCount(row.n);
  },

  /** A version's feedback on its live pages, oldest first, with each page's section and page slugs. */
  ofVersion(db: Executor, versionId: number) {
    return livePages(db)
      .innerJoin('feedback as f', 'f.page_id', 'p.id')
      .where('f.version_id', '=', versionId)
      .select(['d.slug as section', 'p.slug as page', 'f.helpful', 'f.message', 'f.created'])
      .orderBy('f.id')
      .execute();
  },

  /** The live pages of a version by section and page slug, for feedback read back from an archive. */
  async pagesBySlug(db: Executor, versionId: number): Promise<Map<string, number>> {
    const rows = await livePages(db)
      .where('v.id', '=', versionId)
      .select(['d.slug as section', 'p.slug as page', 'p.id'])
      .execute();
    return new Map(rows.map((r) => [`${r.section}/${r.page}`, r.id]));
  },

  /** Feedback read back from an archive, in the order given. */
  async insertMany(db: Executor, rows: ReadonlyArray<NewFeedback & { versionId: number }>): Promise<void> {
    for (let start = 0; start < rows.length; start += 500) {
      const values = rows.slice(start, start + 500).map((r) => ({
        project_id: r.projectId,
        version_id: r.versionId,
        page_id: r.pageId,
        helpful: r.helpful ? 1 : 0,
        message: r.message,
        created: r.created,
      }));
      await db.insertInto('feedback').values(values).execute();
    }
  },
};
