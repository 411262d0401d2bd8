import type { Kysely } from 'kysely';
import { assertVersionInScope, type UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import { bool, type Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { decodeCursor, encodeCursor } from '../../shared/cursor.ts';
import { formatApiDate, parseApiDate, toStoredDate } from '../../shared/dates.ts';
import { presentFeedback } from './feedback.presenter.ts';
import { feedbackRepository as repo } from './feedback.repository.ts';

/** One entry of an export's `feedback.json` (docs/decisions/0031-reader-feedback.md). */
export interface ArchivedFeedback {
  /** the slugs of the page's section and of the page, in the version */
  section: string;
  page: string;
  helpful: boolean;
  message: string | null;
  /** the API's date form */
  created: string;
}

export interface FeedbackQueryInput {
  page_id?: number;
  hits?: number;
  cursor?: string;
}

/** What a reader sent from a page of the site, checked already (src/site/site.feedback.ts). */
export interface ReaderFeedback {
  projectId: number;
  pageId: number;
  helpful: boolean;
  /** trimmed; null when empty */
  message: string | null;
}

/**
 * Readers' feedback on pages (site.md §7, docs/decisions/0031-reader-feedback.md): stored from the
 * site, read over the API newest first, counted in the version report. Nothing about the reader is
 * kept, and nothing of it is shown on the site.
 */
export class FeedbackService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly reader: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Stores feedback on a page readers see; false when the project has no such page for readers. */
  submit(feedback: ReaderFeedback): Promise<boolean> {
    return repo.insertIfVisible(this.db, { ...feedback, created: toStoredDate(this.clock.now()) });
  }

  /** A version's feedback for its export's `feedback.json`, oldest first, pages named by their slugs. */
  async forArchive(db: Executor, versionId: number): Promise<ArchivedFeedback[]> {
    const rows = await repo.ofVersion(db, versionId);
    return rows.map((r) => ({
      section: r.section,
      page: r.page,
      helpful: bool(r.helpful),
      message: r.message,
      created: formatApiDate(r.created),
    }));
  }

  /**
   * Feedback read back from an archive into a version just imported, in the archive's order: each
   * entry on the page its slugs name. Answers the entries whose page the version does not have.
   */
  async fromArchive(
    db: Executor,
    projectId: number,
    versionId: number,
    entries: readonly ArchivedFeedback[],
  ): Promise<ArchivedFeedback[]> {
    const pages = await repo.pagesBySlug(db, versionId);
    const missing: ArchivedFeedback[] = [];
    const rows = [];
    for (const entry of entries) {
      const pageId = pages.get(`${entry.section}/${entry.page}`);
      if (pageId === undefined) {
        missing.push(entry);
        continue;
      }
      rows.push({
        projectId,
        versionId,
        pageId,
        helpful: entry.helpful,
        message: entry.message,
        created: toStoredDate(parseApiDate('created', entry.created)),
      });
    }
    await repo.insertMany(db, rows);
    return missing;
  }

  /** `GET /feedback`: one page's feedback, or the project's, within the key's versions. */
  async list(ctx: UseCaseContext, query: FeedbackQueryInput) {
    const db = ctx.transaction ?? this.reader;
    const projectId = ctx.scope.project.id;
    const pageId = query.page_id ?? null;
    if (pageId !== null) {
      const page = await repo.livePage(db, projectId, pageId);
      if (page === undefined) throw new NotFoundError(`Page ${pageId} not found.`);
      assertVersionInScope(ctx.scope, page.version_id);
    }
    const filter = {
      projectId,
      pageId,
      versions: ctx.scope.versions === null ? null : [...ctx.scope.versions],
    };
    const hits = query.hits ?? 20;
    const beforeId = query.cursor === undefined ? null : decodeCursor(query.cursor);
    // One more than asked tells whether a next page exists without a second count.
    const [rows, total] = await Promise.all([
      repo.page(db, filter, beforeId, hits + 1),
      repo.total(db, filter),
    ]);
    const data = rows.slice(0, hits).map(presentFeedback);
    const last = data[data.length - 1];
    return {
      data,
      count: data.length,
      total,
      cursor: rows.length > hits && last ? encodeCursor(last.id) : null,
    };
  }
}
