import type { Kysely } from 'kysely';
import {
  assertVersionInScope,
  type Scope,
  type TransactionContext,
  type UseCaseContext,
} from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { DialectName } from '../../db/dialect.ts';
import { int, type Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { pickSlug, slugConflict } from '../../db/siblings.ts';
import { inTransaction } from '../../db/transaction.ts';
import { TransactionGroups } from '../../db/transaction-groups.ts';
import { InvalidFieldError, NotFoundError } from '../../errors.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { ChangeWrites } from '../../db/change-writes.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { slugify } from '../../shared/slug.ts';
import { assertPageIfMatch, presentPage, type Page } from './pages.presenter.ts';
import type { PagePlacement, PagePlacer } from './pages.placement.ts';
import type { PageQueries, PageView } from './pages.reads.repository.ts';
import { recordChange, type Recording } from './pages.record.ts';
import { pagesRepository as repo, viewOf } from './pages.repository.ts';
import { explicitSlug, regeneratedSlug } from './page-slugs.ts';
import { assertCreateInput, assertUpdateInput } from './pages.input.ts';
import type { PageCreateInput, PageUpdateInput } from './pages.schemas.ts';
import { writeWholePage, type SectionMemo, type WholePageInput, type WholePageParts } from './pages.whole.ts';

export const CREATE_MESSAGE = 'Created using API';
export const UPDATE_MESSAGE = 'Updated using API';
export const PUBLISH_MESSAGE = 'Published using API';

/**
 * A page's writes: create, update and publish, one transaction each (or a part of the caller's), the
 * history entry and the change event inside it. PagesService hands these out; deletion is PageTrash's.
 */
export type { PagePlacement };

export class PageWriter {
  private readonly creates: TransactionGroups<string>;
  private readonly whole: WholePageParts;
  private readonly recording: Recording;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
    private readonly queries: PageQueries,
    private readonly placer: PagePlacer,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    groupWaitMs: number | null = null,
  ) {
    this.creates = new TransactionGroups(db, groupWaitMs, dialect === 'postgres');
    this.recording = { changes, clock };
    this.whole = {
      queries,
      placer,
      dialect,
      publishMessage: PUBLISH_MESSAGE,
      now: () => toStoredDate(this.clock.now()),
      view: (trx, scope, id) => this.view(trx, scope, id),
      record: (...change) => recordChange(this.recording, ...change),
    };
  }

  /**
   * A page created with its published contents, pending draft and `listed` at once (an import): one
   * insert, no read of what it wrote, the section read once per `memo` (pages.whole.ts); the history
   * and events as create, publish and update record them. In the caller's transaction with no
   * savepoint: a failure fails the caller's whole unit.
   */
  createWhole(
    tx: TransactionContext,
    documentationId: number,
    input: WholePageInput,
    at: PagePlacement,
    memo: SectionMemo,
  ): Promise<Page> {
    return writeWholePage(this.whole, tx, documentationId, input, at, memo);
  }

  async create(
    ctx: UseCaseContext,
    documentationId: number,
    input: PageCreateInput,
    at: PagePlacement = {},
  ): Promise<Page> {
    assertCreateInput(input);
    const message = input.message ?? CREATE_MESSAGE;
    const projectId = ctx.scope.project.id;
    // The creates of one section that arrive together share a transaction and its lock (see
    // TransactionGroups); the first of the transaction takes the lock.
    return this.creates.run(`${projectId}:${documentationId}`, ctx, async (tx, first) => {
      const trx = tx.transaction;
      // One read gives the section, its index's end and whether the slug is free, under the lock
      // (PostgreSQL) that keeps both true until commit.
      if (first) await repo.lockSection(trx, this.dialect, projectId, documentationId);
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
      return recordChange(
        this.recording,
        tx,
        view,
        null,
        'create',
        message,
        new ChangeWrites(trx),
        (page) => ({
          type: 'page.created',
          projectId,
          versionId: section.version_id,
          page,
          documentationId: section.id,
          categoryId: placement.categoryId,
          position: placement.position,
          message,
        }),
      );
    });
  }

  async update(ctx: UseCaseContext, id: number, input: PageUpdateInput): Promise<Page> {
    assertUpdateInput(input);
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
        slug = await regeneratedSlug(trx, before, input.title);
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
      return recordChange(this.recording, tx, after, before, 'update', message, writes, (page) => ({
        type: 'page.updated',
        projectId: ctx.scope.project.id,
        versionId: after.version_id,
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
      return recordChange(this.recording, tx, after, current, 'publish', PUBLISH_MESSAGE, writes, (page) => ({
        type: 'page.published',
        projectId: ctx.scope.project.id,
        versionId: current.version_id,
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
}
