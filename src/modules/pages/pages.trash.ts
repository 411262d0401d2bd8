import type { Kysely } from 'kysely';
import { assertVersionInScope, type UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { firstFreeSlug } from '../../shared/slug.ts';
import type { DocumentationService } from '../documentation/documentation.service.ts';
import { assertPageIfMatch, presentPage, type Page } from './pages.presenter.ts';
import type { PageQueries } from './pages.reads.repository.ts';
import { liveSlug, trashRepository as repo } from './pages.trash.repository.ts';

/** Deleted rows are kept this long, then purged. */
export const KEEP_DELETED_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface PurgeReport {
  before: string;
  pages: number;
  documentation: number;
  references: number;
  versions: number;
}

/**
 * Deleting pages (N1) and bringing them back. A delete is soft: the rows stay, with `deleted_at`, and
 * leave every read at once (each read filters on it; the search index follows the change event). The
 * slug is freed (see pages.trash.repository.ts), so a new page may take it; a restore then gives the
 * page the next free slug of its family. After KEEP_DELETED_DAYS the purge removes the rows.
 */
export class PageTrash {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly queries: PageQueries,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    private readonly documentation: DocumentationService,
  ) {}

  /** Deletes a page and the pages below it. */
  async delete(ctx: UseCaseContext, id: number): Promise<void> {
    await inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const found = await this.queries.view(trx, ctx.scope.project.id, id);
      if (!found) throw new NotFoundError(`Page ${id} not found.`);
      assertVersionInScope(ctx.scope, found.version_id);
      await this.documentation.lockIndex(trx, found.documentation_id);
      // Read again under the lock: a concurrent delete may have taken it meanwhile.
      const view = await this.queries.view(trx, ctx.scope.project.id, id);
      if (!view) throw new NotFoundError(`Page ${id} not found.`);
      assertPageIfMatch(ctx.ifMatch, view);
      const pageIds = await repo.liveTree(trx, id);
      await repo.markDeleted(trx, pageIds, toStoredDate(this.clock.now()));
      await this.changes.record(tx, {
        type: 'page.deleted',
        projectId: ctx.scope.project.id,
        versionId: view.version_id,
        page: presentPage(view),
        pageIds,
      });
    });
  }

  /**
   * Brings back a deleted page with the pages below it that were deleted with it, history and all.
   * A page deleted with its parent comes back with the parent, not alone.
   */
  async restore(ctx: UseCaseContext, id: number): Promise<Page> {
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const projectId = ctx.scope.project.id;
      const deleted = await repo.deletedPage(trx, projectId, id);
      if (!deleted) {
        if (await this.queries.view(trx, projectId, id)) {
          throw new ConflictError(`Page ${id} is not deleted.`);
        }
        throw new NotFoundError(`Page ${id} not found.`);
      }
      assertVersionInScope(ctx.scope, deleted.version_id);
      if (deleted.parent_deleted_at !== null) {
        throw new ConflictError(
          `Page ${id} is under page ${deleted.parent_page_id}, which is deleted too: restore that page.`,
        );
      }
      await this.documentation.lockIndex(trx, deleted.documentation_id);
      const tree = await repo.deletedTree(trx, id, deleted.deleted_at);
      let slugTaken: string | null = null;
      for (const row of tree) {
        const wanted = liveSlug(row.slug);
        const slug = firstFreeSlug(wanted, await repo.liveSlugs(trx, deleted.documentation_id, wanted));
        if (row.id === id && slug !== wanted) slugTaken = wanted;
        await repo.restore(trx, row.id, slug);
      }
      const view = await this.queries.view(trx, projectId, id);
      if (!view) throw new NotFoundError(`Page ${id} not found.`);
      const page = presentPage(view);
      await this.changes.record(tx, {
        type: 'page.restored',
        projectId,
        versionId: view.version_id,
        page,
        pageIds: tree.map((row) => row.id),
        slugTaken,
      });
      return page;
    });
  }

  /** Removes for good what was deleted more than KEEP_DELETED_DAYS ago, in every project. */
  async purge(): Promise<PurgeReport> {
    const before = toStoredDate(this.clock.now() - KEEP_DELETED_DAYS * DAY_MS);
    // Pages first (a section's purge would take its deleted pages with it uncounted), versions last.
    const pages = await repo.purge(this.db, 'pages', before);
    const documentation = await repo.purge(this.db, 'documentation', before);
    const references = await repo.purge(this.db, 'api_references', before);
    const versions = await repo.purge(this.db, 'versions', before);
    return { before, pages, documentation, references, versions };
  }
}
