import type { Kysely } from 'kysely';
import type { TransactionContext, UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import type { Database } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import type { DocumentationService } from '../documentation/documentation.service.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { DEFAULT_PAGE_CACHE_BYTES, PageResponseCache, type PageCacheOptions } from './page-responses.ts';
import type { Page } from './pages.presenter.ts';
import { PageHistory, type RevisionList } from './pages.history.ts';
import { PagePlacer } from './pages.placement.ts';
import { PageReader, type TaggedAnswer } from './pages.reader.ts';
import { PageQueries } from './pages.reads.repository.ts';
import type { RenderStats } from './pages.renderer.ts';
import type { PageBySlugInput, PageCreateInput, PageFormat, PageUpdateInput } from './pages.schemas.ts';
import { PageTrash, type PurgeReport } from './pages.trash.ts';
import { PageWriter, type PagePlacement } from './pages.writer.ts';
import type { SectionMemo, WholePageInput } from './pages.whole.ts';
import type { RenderAhead } from './render-ahead.ts';
import type { RenderRoom } from './render-room.ts';
import type { RenderedStore, StoredRenderStats } from './rendered-store.ts';

/**
 * Pages: what the routes and other modules call. Writes in PageWriter (one transaction each, history
 * and change event inside it), reads in PageReader, deletion in PageTrash.
 */
export class PagesService {
  private readonly db: Kysely<Database>;
  private readonly queries: PageQueries;
  private readonly reader: PageReader;
  private readonly writer: PageWriter;
  private readonly revisions: PageHistory;
  private readonly trash: PageTrash;
  private readonly responses: PageResponseCache;
  /** the render room's outputs kept in the database (decision 0018), for the purge */
  readonly rendered: RenderedStore;
  /** the render room's rendering ahead */
  readonly ahead: RenderAhead;

  constructor(
    database: DatabaseHandle,
    clock: Clock,
    changes: ChangeRecorder,
    versions: VersionsService,
    documentation: DocumentationService,
    private readonly renders: RenderRoom,
    caches: PageCacheOptions,
    /**
     * How long a create may wait for the transaction of its section's group (TransactionGroups):
     * PostgreSQL's statement timeout, which bounded a wait for the section's lock before; null, no
     * bound (SQLite, where writes waited for the one writer without one).
     */
    groupWaitMs: number | null = null,
  ) {
    this.db = database.db;
    this.queries = new PageQueries(database);
    const cacheBytes = (caches.memoryBytes ?? DEFAULT_PAGE_CACHE_BYTES) / 2;
    this.rendered = renders.stored;
    this.ahead = renders.ahead;
    this.writer = new PageWriter(
      this.db,
      database.dialect,
      this.queries,
      new PagePlacer(documentation),
      clock,
      changes,
      groupWaitMs,
    );
    this.revisions = new PageHistory(database.reader, this.queries);
    this.trash = new PageTrash(this.db, this.queries, clock, changes, documentation);
    this.responses = new PageResponseCache(caches.stamp, cacheBytes);
    this.reader = new PageReader(
      database.reader,
      this.queries,
      renders.pages,
      versions,
      documentation,
      this.responses,
    );
  }

  /** `GET /page/{id}`: the serialised answer, so a cached one is sent as it is. */
  getJson(ctx: UseCaseContext, id: number, format: PageFormat): Promise<TaggedAnswer> {
    return this.reader.getJson(ctx, id, format);
  }

  getBySlugs(ctx: UseCaseContext, query: PageBySlugInput): Promise<string | Buffer> {
    return this.reader.getBySlugs(ctx, query);
  }

  /**
   * A page's published contents in `format` for the reader site, which found the page readable
   * through the readers' module; null when it has none (any more). Rendered and kept as the API's
   * reads are (the render room), under the project's change stamp read before.
   */
  async publishedContents(
    projectId: number,
    id: number,
    format: Exclude<PageFormat, 'darkdown'>,
    stamp: string | null,
  ): Promise<string | null> {
    const view = await this.queries.readView(undefined, projectId, id);
    if (!view) return null;
    const { published } = await this.renders.pages.contents(view, format, { stamp });
    if (published === null) return null;
    return typeof published === 'string'
      ? published
      : (JSON.parse(Buffer.from(published.bytes).toString('utf8')) as string);
  }

  /** `GET /page/{id}/history`: the page's revisions, newest first. */
  history(ctx: UseCaseContext, id: number, query: { hits?: number; cursor?: string }): Promise<RevisionList> {
    return this.revisions.list(ctx, id, query);
  }

  /** `GET /page/{id}/history/{revision}`: that revision as a Page answer. */
  async revisionJson(
    ctx: UseCaseContext,
    id: number,
    revision: number,
    format: PageFormat,
  ): Promise<string | Buffer> {
    return this.reader.revisionJson(ctx, id, await this.revisions.revision(ctx, id, revision), format);
  }

  /** A revision's content becomes the draft again, as a new revision (`Restored revision N`). */
  async restoreRevision(ctx: UseCaseContext, id: number, revision: number): Promise<Page> {
    return inTransaction(this.db, ctx, async (tx) => {
      const row = await this.revisions.revision(tx, id, revision);
      const content = row.content_draft ?? row.content_published ?? '';
      return this.writer.update(tx, id, { content, message: `Restored revision ${revision}` });
    });
  }

  /** `DELETE /page/{id}`: the page and its sub-pages leave every read (soft; restorable for 30 days). */
  delete(ctx: UseCaseContext, id: number): Promise<void> {
    return this.trash.delete(ctx, id);
  }

  /** `POST /page/{id}/restore`: a deleted page back, with the sub-pages deleted with it. */
  restore(ctx: UseCaseContext, id: number): Promise<Page> {
    return this.trash.restore(ctx, id);
  }

  /** Removes for good what was deleted more than 30 days ago (on start, daily, `bin/quire purge`). */
  purgeDeleted(): Promise<PurgeReport> {
    return this.trash.purge();
  }

  renderStats(): RenderStats {
    return this.renders.pages.stats();
  }

  /** Lookups of the titles [auto$] links name: a hit needed no query. */
  linkTitleStats(): { hits: number; misses: number } {
    return this.renders.pages.linkTitleStats();
  }

  storedRenderStats(): StoredRenderStats {
    return this.renders.stored.stats();
  }

  /** Lookups of the serialised answers of `GET /page/{id}` and by slugs. */
  responseCacheStats(): { hits: number; misses: number } {
    return this.responses.stats();
  }

  /** `POST /documentation/{id}/page`: a new page, its contents the draft. */
  create(
    ctx: UseCaseContext,
    documentationId: number,
    input: PageCreateInput,
    at: PagePlacement = {},
  ): Promise<Page> {
    return this.writer.create(ctx, documentationId, input, at);
  }

  /** An imported page written whole in the caller's transaction (PageWriter.createWhole). */
  createWhole(
    tx: TransactionContext,
    documentationId: number,
    input: WholePageInput,
    at: PagePlacement,
    memo: SectionMemo,
  ): Promise<Page> {
    return this.writer.createWhole(tx, documentationId, input, at, memo);
  }

  /** `PUT /page/{id}`: title, slug, draft contents, `listed`, its place. */
  update(ctx: UseCaseContext, id: number, input: PageUpdateInput): Promise<Page> {
    return this.writer.update(ctx, id, input);
  }

  /** The draft becomes the published content. With no pending draft, nothing changes and nothing is recorded. */
  publish(ctx: UseCaseContext, id: number): Promise<Page> {
    return this.writer.publish(ctx, id);
  }
}
