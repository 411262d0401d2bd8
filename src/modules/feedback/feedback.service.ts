import type { Kysely } from 'kysely';
import { assertVersionInScope, type UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { decodeCursor, encodeCursor } from '../../shared/cursor.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { presentFeedback } from './feedback.presenter.ts';
import { feedbackRepository as repo } from './feedback.repository.ts';

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
