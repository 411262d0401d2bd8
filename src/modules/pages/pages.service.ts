import type { Kysely } from 'kysely';
import {
  assertVersionInScope,
  type Scope,
  type TransactionContext,
  type UseCaseContext,
} from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { DatabaseHandle, DialectName } from '../../db/dialect.ts';
import { int, type Executor } from '../../db/executor.ts';
import type { Database, PageHistoryTable } from '../../db/schema.ts';
import { pickSlug, slugConflict } from '../../db/siblings.ts';
import { inTransaction } from '../../db/transaction.ts';
import { BadRequestError, InvalidFieldError, NotFoundError, UniqueViolationError } from '../../errors.ts';
import type { ChangeEvent } from '../../events/change-events.ts';
import type { ChangeRecorder } from '../../events/change-recorder.ts';
import { ChangeWrites } from '../../events/change-writes.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { assertSlug, slugify } from '../../shared/slug.ts';
import { assertNotBlank } from '../../shared/text.ts';
import type { DocumentationService } from '../documentation/documentation.service.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { DEFAULT_PAGE_CACHE_BYTES, PageResponseCache, type PageCacheOptions } from './page-responses.ts';
import { assertPageIfMatch, presentPage, type Page } from './pages.presenter.ts';
import { PageHistory, type RevisionList } from './pages.history.ts';
import { PagePlacer } from './pages.placement.ts';
import { PageTrash, type PurgeReport } from './pages.trash.ts';
import { PageReader, type TaggedAnswer } from './pages.reader.ts';
import type { WorkerPool } from '../../workers/pool.ts';
import { PageRenderer, type RenderStats } from './pages.renderer.ts';
import { RenderAhead } from './render-ahead.ts';
import { RenderedStore, type StoredRenderStats } from './rendered-store.ts';
import { PageQueries, type PageView } from './pages.reads.repository.ts';
import { pagesRepository as repo, type PageRow } from './pages.repository.ts';
import type { PageBySlugInput, PageCreateInput, PageFormat, PageUpdateInput } from './pages.schemas.ts';

export const CREATE_MESSAGE = 'Created using API';
export const UPDATE_MESSAGE = 'Updated using API';
export const PUBLISH_MESSAGE = 'Published using API';

/** Where a page goes, for callers inside Quire (an import) that know the rows already. */
export interface PagePlacement {
  /** the category it joins, placed after the category's last page; null or absent: the end of the index */
  categoryId?: number | null;
  /** the page it is a child of, in the same section */
  parentId?: number | null;
}

/**
 * Pages: create, update and publish here (one transaction each, history and change event inside it);
 * reads in PageReader, deletion in PageTrash.
 */
export class PagesService {
  private readonly db: Kysely<Database>;
  private readonly queries: PageQueries;
  private readonly renderer: PageRenderer;
  private readonly reader: PageReader;
  private readonly placer: PagePlacer;
  private readonly revisions: PageHistory;
  private readonly trash: PageTrash;
  private readonly responses: PageResponseCache;
  private readonly dialect: DialectName;
  /** rendered outputs kept in the database (decision 0018) */
  readonly rendered: RenderedStore;
  /** renders the HTML of changed pages in the background */
  readonly ahead: RenderAhead;

  constructor(
    database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    versions: VersionsService,
    documentation: DocumentationService,
    workers: WorkerPool,
    caches: PageCacheOptions,
  ) {
    this.db = database.db;
    this.dialect = database.dialect;
    this.queries = new PageQueries(database);
    const cacheBytes = (caches.memoryBytes ?? DEFAULT_PAGE_CACHE_BYTES) / 2;
    this.rendered = new RenderedStore(database, clock);
    this.renderer = new PageRenderer(this.queries, workers, { maxBytes: cacheBytes, store: this.rendered });
    this.ahead = new RenderAhead(this.queries, this.renderer);
    this.placer = new PagePlacer(documentation);
    this.revisions = new PageHistory(database.reader, this.queries);
    this.trash = new PageTrash(this.db, this.queries, clock, changes, documentation);
    this.responses = new PageResponseCache(caches.stamp, cacheBytes);
    this.reader = new PageReader(
      database.reader,
      this.queries,
      this.renderer,
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
      return this.update(tx, id, { content, message: `Restored revision ${revision}` });
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
    return this.renderer.stats();
  }

  /** Lookups of the titles [auto$] links name: a hit needed no query. */
  linkTitleStats(): { hits: number; misses: number } {
    return this.renderer.linkTitleStats();
  }

  storedRenderStats(): StoredRenderStats {
    return this.rendered.stats();
  }

  /** Lookups of the serialised answers of `GET /page/{id}` and by slugs. */
  responseCacheStats(): { hits: number; misses: number } {
    return this.responses.stats();
  }

  async create(
    ctx: UseCaseContext,
    documentationId: number,
    input: PageCreateInput,
    at: PagePlacement = {},
  ): Promise<Page> {
    assertNotBlank('body.title', input.title);
    if (input.slug !== undefined) assertSlug('body.slug', input.slug);
    const message = input.message ?? CREATE_MESSAGE;
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const projectId = ctx.scope.project.id;
      // One read gives the section, its index's end and whether the slug is free, under the lock
      // (PostgreSQL) that keeps both true until commit.
      await repo.lockSection(trx, this.dialect, projectId, documentationId);
      const base = input.slug ?? slugify(input.title, 'page');
      const section = await this.queries.newPageSection(trx, projectId, documentationId, base);
      if (!section) throw new NotFoundError(`Documentation ${documentationId} not found.`);
      assertVersionInScope(ctx.scope, section.version_id);
      const end = Math.max(Number(section.last_page ?? 0), Number(section.last_category ?? 0)) + 1;
      const placement =
        input.categoryTitle === undefined && (at.categoryId ?? null) === null
          ? { categoryId: null, position: end }
          : await this.placer.placeNew(trx, section.id, input.categoryTitle, at.categoryId ?? null);
      const parentId = at.parentId ?? null;
      if (parentId !== null) {
        const parent = await this.view(trx, ctx.scope, parentId);
        if (parent.documentation_id !== section.id) {
          throw new InvalidFieldError('parentId', `names a page outside documentation ${section.id}`);
        }
      }
      if (input.slug !== undefined && section.slug_holder !== null) throw slugConflict('page', input.slug);
      // A free slug of the title's is the one pickSlug would choose; only a taken one needs the family.
      const slug =
        section.slug_holder === null
          ? base
          : await pickSlug(trx, 'pages', section.id, { kind: 'page', title: input.title, fallback: 'page' });
      const now = toStoredDate(this.clock.now());
      const row = await explicitSlug(input.slug, () =>
        repo.insert(trx, {
          documentation_id: section.id,
          category_id: placement.categoryId,
          parent_page_id: parentId,
          title: input.title,
          slug,
          listed: int(false),
          content_draft: input.content,
          content_published: null,
          position: placement.position,
          deleted_at: null,
          created: now,
          updated: now,
        }),
      );
      const view: PageView = {
        ...viewOf(row),
        version_id: section.version_id,
        documentation_slug: section.slug,
        version_slug: section.version_slug,
        variables: section.variables,
      };
      return this.record(tx, view, 'create', message, new ChangeWrites(trx), (page) => ({
        type: 'page.created',
        projectId,
        page,
        documentationId: section.id,
        categoryId: placement.categoryId,
        position: placement.position,
        message,
      }));
    });
  }

  async update(ctx: UseCaseContext, id: number, input: PageUpdateInput): Promise<Page> {
    const { message: _message, ...changes } = input;
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new BadRequestError(
        'Give at least one of title, slug, content, listed, categoryTitle, parentId.',
        [
          {
            field: 'body',
            message: 'must have at least one of title, slug, content, listed, categoryTitle, parentId',
          },
        ],
      );
    }
    if (input.categoryTitle !== undefined && input.parentId !== undefined && input.parentId !== null) {
      throw new InvalidFieldError(
        'body.parentId',
        "cannot be given with categoryTitle: a child page is in its parent's category",
      );
    }
    if (input.title !== undefined) assertNotBlank('body.title', input.title);
    if (input.slug !== undefined) assertSlug('body.slug', input.slug);
    const message = input.message ?? UPDATE_MESSAGE;
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      // A new slug or place needs the section's lock (PostgreSQL), then the page as it stands under it;
      // the contents and `listed` need only the page's row.
      const placing =
        input.title !== undefined ||
        input.slug !== undefined ||
        input.categoryTitle !== undefined ||
        input.parentId !== undefined;
      if (placing) await repo.lockSectionOfPage(trx, this.dialect, ctx.scope.project.id, id);
      const before = placing
        ? await this.view(trx, ctx.scope, id)
        : await this.lockedView(trx, ctx.scope, id);
      assertPageIfMatch(ctx.ifMatch, before);
      let slug = before.slug;
      if (input.slug !== undefined) {
        slug = await pickSlug(trx, 'pages', before.documentation_id, {
          kind: 'page',
          explicit: input.slug,
          title: before.title,
          fallback: 'page',
          self: id,
        });
      } else if (input.title !== undefined) {
        slug = await this.regeneratedSlug(trx, before, input.title);
      }
      const moved =
        input.categoryTitle !== undefined || input.parentId !== undefined
          ? await this.placer.move(trx, ctx.scope, before, {
              categoryTitle: input.categoryTitle,
              parentId: input.parentId,
            })
          : undefined;
      const values = {
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.content !== undefined ? { content_draft: input.content } : {}),
        ...(input.listed !== undefined ? { listed: int(input.listed) } : {}),
        // Only a placing update sets the slug: SQLite rewrites the entry of every index whose column
        // an UPDATE sets, same value or not, and (section, slug) is the unique index.
        ...(placing ? { slug } : {}),
        updated: toStoredDate(this.clock.now()),
      };
      const writes = new ChangeWrites(trx);
      let after: PageView;
      if (placing) {
        const row = await explicitSlug(input.slug, () => repo.update(trx, id, values));
        after = { ...before, ...viewOf(row) };
      } else {
        // The contents and `listed` alone: no unique value moves, and the row is locked (PostgreSQL),
        // so the page afterwards is known without reading it back and its update goes with the
        // change's other writes.
        writes.add(repo.updating(trx, id, values));
        after = { ...before, ...values };
      }
      return this.record(tx, after, 'update', message, writes, (page) => ({
        type: 'page.updated',
        projectId: ctx.scope.project.id,
        page,
        before: { title: before.title, slug: before.slug },
        contentChanged: input.content !== undefined && input.content !== before.content_draft,
        message,
        ...(moved !== undefined ? { moved } : {}),
        ...(input.listed !== undefined && int(input.listed) !== before.listed
          ? { listed: input.listed }
          : {}),
      }));
    });
  }

  /** The draft becomes the published content. With no pending draft, nothing changes and nothing is recorded. */
  async publish(ctx: UseCaseContext, id: number): Promise<Page> {
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      // Read with the page's row locked (PostgreSQL): a concurrent publish may have taken the draft.
      // Publishing moves no slug and no position, so the section's lock is not needed.
      const current = await this.lockedView(trx, ctx.scope, id);
      assertPageIfMatch(ctx.ifMatch, current);
      if (current.content_draft === null) return presentPage(current);
      // No unique value moves and the row is locked (PostgreSQL): the page afterwards is known, and
      // its update goes with the change's other writes.
      const values = {
        content_published: current.content_draft,
        content_draft: null,
        listed: int(true),
        updated: toStoredDate(this.clock.now()),
      };
      const writes = new ChangeWrites(trx);
      writes.add(repo.updating(trx, id, values));
      const after: PageView = { ...current, ...values };
      return this.record(tx, after, 'publish', PUBLISH_MESSAGE, writes, (page) => ({
        type: 'page.published',
        projectId: ctx.scope.project.id,
        page,
        wasListed: current.listed === 1,
        message: PUBLISH_MESSAGE,
      }));
    });
  }

  /** A live page of the scope's project, honouring its version scope (404 / 403). */
  private async view(trx: Executor, scope: Scope, id: number): Promise<PageView> {
    const view = await this.queries.view(trx, scope.project.id, id);
    if (!view) throw new NotFoundError(`Page ${id} not found.`);
    assertVersionInScope(scope, view.version_id);
    return view;
  }

  /** As view, with the page's row locked to commit (PostgreSQL). */
  private async lockedView(trx: Executor, scope: Scope, id: number): Promise<PageView> {
    const view = await this.queries.lockedView(trx, scope.project.id, id);
    if (!view) throw new NotFoundError(`Page ${id} not found.`);
    assertVersionInScope(scope, view.version_id);
    return view;
  }

  /**
   * The slug for a new title: generated and unique in the section. The page's own slug is no collision,
   * so a slug already of the new title's family (`base`, `base-2`…) is kept and an unchanged title
   * keeps its slug.
   */
  private async regeneratedSlug(db: Executor, page: PageView, title: string): Promise<string> {
    // An unchanged title keeps the slug, even one picked by hand: a client that always sends the
    // title must not move the page.
    if (title === page.title) return page.slug;
    const base = slugify(title, 'page');
    const family = new RegExp(`^${base}(-([2-9]|[1-9][0-9]+))?$`);
    if (family.test(page.slug)) return page.slug;
    return pickSlug(db, 'pages', page.documentation_id, {
      kind: 'page',
      title,
      fallback: 'page',
      self: page.id,
    });
  }

  /**
   * The page's history entry and its change event, in the change's transaction: the entry joins
   * `writes` (what the use case queued already), sent with the subscribers' writes.
   */
  private async record(
    tx: TransactionContext,
    view: PageView,
    operation: PageHistoryTable['operation'],
    message: string,
    writes: ChangeWrites,
    event: (page: Page) => ChangeEvent,
  ): Promise<Page> {
    writes.add(
      repo.historyInsertion(tx.transaction, {
        page_id: view.id,
        operation,
        message,
        title: view.title,
        slug: view.slug,
        content_draft: view.content_draft,
        content_published: view.content_published,
        api_key_id: tx.actor.kind === 'key' ? tx.actor.keyId : null,
        user_id: tx.actor.kind === 'key' ? (tx.actor.user?.id ?? null) : null,
        created: toStoredDate(this.clock.now()),
      }),
    );
    const page = presentPage(view);
    await this.changes.record(tx, event(page), writes);
    return page;
  }
}

/** The page's own fields of a view, as a write returned them (the joined ones are the caller's). */
function viewOf(row: PageRow) {
  return {
    id: row.id,
    documentation_id: row.documentation_id,
    title: row.title,
    slug: row.slug,
    listed: row.listed,
    content_draft: row.content_draft,
    content_published: row.content_published,
    created: row.created,
    updated: row.updated,
  };
}

/** A unique violation on a slug the caller chose is their conflict (409), not a race to retry. */
async function explicitSlug<T>(explicit: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueViolationError && explicit !== undefined) throw slugConflict('page', explicit);
    throw error;
  }
}
