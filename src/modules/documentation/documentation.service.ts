import type { Kysely } from 'kysely';
import { assertVersionInScope, type Scope, type UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { DialectName } from '../../db/dialect.ts';
import { int, type Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { nextOrdr, pickSlug, slugConflict } from '../../db/siblings.ts';
import { inTransaction } from '../../db/transaction.ts';
import { BadRequestError, ConflictError, NotFoundError, UniqueViolationError } from '../../errors.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { assertSlug } from '../../shared/slug.ts';
import { assertNotBlank } from '../../shared/text.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { assertIfMatch } from '../../shared/entity-tags.ts';
import {
  documentationTag,
  presentCategory,
  presentDocumentation,
  type Category,
  type Documentation,
} from './documentation.presenter.ts';
import {
  documentationRepository as repo,
  type CategoryRow,
  type DocumentationRow,
} from './documentation.repository.ts';

export interface DocumentationCreateInput {
  title: string;
  slug?: string;
  published?: boolean;
}

export interface DocumentationUpdateInput {
  title?: string;
  slug?: string;
  published?: boolean;
  /** the section's place among its version's sections, from 0; past the end means last */
  ordr?: number;
}

export type { CategoryRow, DocumentationRow };

export class DocumentationService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly reader: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    private readonly versions: VersionsService,
    private readonly dialect: DialectName,
  ) {}

  async listForVersion(ctx: UseCaseContext, versionId: number): Promise<Documentation[]> {
    const db = ctx.transaction ?? this.reader;
    const version = await this.versions.resolve(db, ctx.scope, { id: versionId });
    const rows = await repo.listByVersion(db, version.id);
    return rows.map(presentDocumentation);
  }

  /** A section of the scope's project, honouring its version scope (404 / 403). */
  async resolve(db: Executor, scope: Scope, id: number): Promise<DocumentationRow> {
    const row = await repo.findById(db, scope.project.id, id);
    if (!row) throw new NotFoundError(`Documentation ${id} not found.`);
    assertVersionInScope(scope, row.version_id);
    return row;
  }

  /** A live section of a version by its slug, or undefined. */
  findBySlug(db: Executor, versionId: number, slug: string): Promise<DocumentationRow | undefined> {
    return repo.findBySlug(db, versionId, slug);
  }

  /** A section in a version of the scope's project, placed after the others. */
  async create(
    ctx: UseCaseContext,
    versionId: number,
    input: DocumentationCreateInput,
  ): Promise<Documentation> {
    assertNotBlank('title', input.title);
    if (input.slug !== undefined) assertSlug('slug', input.slug);
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const version = await this.versions.resolve(trx, ctx.scope, { id: versionId });
      const slug = await pickSlug(trx, 'documentation', version.id, {
        kind: 'documentation',
        explicit: input.slug,
        title: input.title,
        fallback: 'documentation',
      });
      const now = toStoredDate(this.clock.now());
      const documentation = presentDocumentation(
        await repo.insert(trx, {
          version_id: version.id,
          title: input.title,
          slug,
          published: int(input.published ?? false),
          ordr: await nextOrdr(trx, 'documentation', version.id),
          deleted_at: null,
          created: now,
          updated: now,
        }),
      );
      await this.changes.record(tx, {
        type: 'documentation.created',
        projectId: ctx.scope.project.id,
        versionId: version.id,
        documentation,
      });
      return documentation;
    });
  }

  /**
   * Renames, re-slugs, publishes or moves a section. A new `ordr` is its place among the version's
   * sections: the others close up around it and all are numbered again from 0.
   */
  async update(ctx: UseCaseContext, id: number, input: DocumentationUpdateInput): Promise<Documentation> {
    if (Object.values(input).every((value) => value === undefined)) {
      throw new BadRequestError('Give at least one of title, slug, published, ordr.', [
        { field: 'body', message: 'must have at least one of title, slug, published, ordr' },
      ]);
    }
    if (input.title !== undefined) assertNotBlank('body.title', input.title);
    if (input.slug !== undefined) assertSlug('body.slug', input.slug);
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const before = await this.resolve(trx, ctx.scope, id);
      await this.versions.lockSections(trx, before.version_id);
      assertIfMatch(ctx.ifMatch, documentationTag(presentDocumentation(before)));
      if (input.slug !== undefined && input.slug !== before.slug) {
        await pickSlug(trx, 'documentation', before.version_id, {
          kind: 'documentation',
          explicit: input.slug,
          title: before.title,
          fallback: 'documentation',
          self: id,
        });
      }
      let row: DocumentationRow;
      try {
        row = await repo.update(trx, id, {
          ...(input.title !== undefined ? { title: input.title } : {}),
          ...(input.slug !== undefined ? { slug: input.slug } : {}),
          ...(input.published !== undefined ? { published: int(input.published) } : {}),
          updated: toStoredDate(this.clock.now()),
        });
      } catch (error) {
        if (error instanceof UniqueViolationError && input.slug !== undefined) {
          throw slugConflict('documentation', input.slug);
        }
        throw error;
      }
      if (input.ordr !== undefined) {
        const others = (await repo.listByVersion(trx, before.version_id)).filter((d) => d.id !== id);
        const at = Math.min(input.ordr, others.length);
        await repo.renumber(trx, [
          ...others.slice(0, at).map((d) => d.id),
          id,
          ...others.slice(at).map((d) => d.id),
        ]);
        row = (await repo.findById(trx, ctx.scope.project.id, id)) ?? row;
      }
      const documentation = presentDocumentation(row);
      await this.changes.record(tx, {
        type: 'documentation.updated',
        projectId: ctx.scope.project.id,
        versionId: before.version_id,
        documentation,
        before: presentDocumentation(before),
      });
      return documentation;
    });
  }

  /**
   * Deletes a section (soft, like pages: the rows stay, with `deleted_at`). A section that holds pages
   * is deleted only with `cascade`, and its pages with it; they leave every read and search at once.
   */
  async delete(ctx: UseCaseContext, id: number, cascade: boolean): Promise<Record<string, never>> {
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const section = await this.resolve(trx, ctx.scope, id);
      await this.lockIndex(trx, section.id);
      assertIfMatch(ctx.ifMatch, documentationTag(presentDocumentation(section)));
      const pages = await repo.countLivePages(trx, section.id);
      if (pages > 0 && !cascade) {
        throw new ConflictError(
          `Documentation ${id} holds ${pages} page(s): delete them first, or delete with cascade=true.`,
        );
      }
      const now = toStoredDate(this.clock.now());
      if (pages > 0) await repo.deletePages(trx, section.id, now);
      const deleted = await repo.update(trx, section.id, { deleted_at: now, updated: now });
      await this.changes.record(tx, {
        type: 'documentation.deleted',
        projectId: ctx.scope.project.id,
        versionId: section.version_id,
        documentation: presentDocumentation(deleted),
        pages,
      });
      return {};
    });
  }

  /** A category at the end of a section's index. */
  async createCategory(ctx: UseCaseContext, documentationId: number, title: string): Promise<Category> {
    assertNotBlank('title', title);
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const section = await this.resolve(trx, ctx.scope, documentationId);
      await this.lockIndex(trx, section.id);
      const now = toStoredDate(this.clock.now());
      const category = presentCategory(
        await repo.insertCategory(trx, {
          documentation_id: section.id,
          title,
          position: await repo.nextPosition(trx, section.id),
          created: now,
          updated: now,
        }),
      );
      await this.changes.record(tx, {
        type: 'category.created',
        projectId: ctx.scope.project.id,
        versionId: section.version_id,
        category,
      });
      return category;
    });
  }

  /**
   * Serialises writers of one section's index and page slugs on PostgreSQL (a row lock held to
   * commit). SQLite needs none: its single writer connection runs one transaction at a time.
   */
  lockIndex(db: Executor, documentationId: number): Promise<void> {
    return repo.lockIndex(db, this.dialect, documentationId);
  }

  /** The next free position at the end of a section's index (categories and pages share it). */
  nextPosition(db: Executor, documentationId: number): Promise<number> {
    return repo.nextPosition(db, documentationId);
  }
}
