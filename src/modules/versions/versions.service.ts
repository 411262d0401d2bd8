import type { Kysely } from 'kysely';
import { assertVersionInScope, canSeeVersion, type Scope, type UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { DialectName } from '../../db/dialect.ts';
import { int, type Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { nextOrdr, pickSlug, slugConflict } from '../../db/siblings.ts';
import { inTransaction } from '../../db/transaction.ts';
import { BadRequestError, ConflictError, NotFoundError, UniqueViolationError } from '../../errors.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { assertVersionSlug, RESERVED_VERSION_SLUGS } from '../../shared/slug.ts';
import { assertNotBlank } from '../../shared/text.ts';
import type { VersionSelector } from './version-selector.ts';
import { VersionCloner, type VersionCloneInput } from './versions.clone.ts';
import { VersionReport, type VersionReportPage } from './versions.report.ts';
import { presentVersion, versionTag, type Version } from './versions.presenter.ts';
import { assertIfMatch } from '../../shared/entity-tags.ts';
import { versionsRepository as repo, type VersionRow } from './versions.repository.ts';

export type { VersionRow, VersionSelector };

export interface VersionCreateInput {
  name: string;
  slug?: string;
  published?: boolean;
}

export interface VersionUpdateInput {
  name?: string;
  slug?: string;
  published?: boolean;
}

export class VersionsService {
  private readonly cloner: VersionCloner;
  private readonly reports: VersionReport;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly reader: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    private readonly dialect: DialectName,
  ) {
    this.cloner = new VersionCloner(db, clock, changes, this, dialect);
    this.reports = new VersionReport(reader, this);
  }

  /** `GET /version/{id}/report`: every page of the version, with who made and changed it. */
  report(ctx: UseCaseContext, id: number, createdByEmail?: string): Promise<VersionReportPage[]> {
    return this.reports.pages(ctx, id, createdByEmail);
  }

  /** `POST /version/{id}/clone`: an unpublished copy of the version, placed first. */
  clone(ctx: UseCaseContext, id: number, input: VersionCloneInput): Promise<Version> {
    return this.cloner.clone(ctx, id, input);
  }

  async list(ctx: UseCaseContext): Promise<Version[]> {
    const rows = await repo.list(ctx.transaction ?? this.reader, ctx.scope.project.id);
    return rows.filter((r) => canSeeVersion(ctx.scope, r.id)).map(presentVersion);
  }

  /** Finds a version of the scope's project, honouring its version scope (404 / 403). */
  async resolve(db: Executor, scope: Scope, selector: VersionSelector): Promise<VersionRow> {
    const projectId = scope.project.id;
    let row: VersionRow | undefined;
    let label: string;
    if ('id' in selector) {
      row = await repo.findById(db, projectId, selector.id);
      label = `Version ${selector.id}`;
    } else if ('slug' in selector && selector.slug !== 'latest') {
      row = await repo.findBySlug(db, projectId, selector.slug);
      label = `Version '${selector.slug}'`;
    } else {
      row = await repo.findDefault(db, projectId);
      label = 'A default (published) version';
    }
    if (!row) throw new NotFoundError(`${label} not found.`);
    assertVersionInScope(scope, row.id);
    return row;
  }

  /**
   * The versions of an import written in steps (decision 0020): hidden as deleted, named by their
   * importing process, between the steps; shown within each (`live`: for good, at its last).
   */
  hideStaged(db: Executor, ids: readonly number[], holder: string): Promise<void> {
    return repo.hideStaged(db, ids, holder, toStoredDate(this.clock.now()));
  }

  showStaged(db: Executor, ids: readonly number[], holder: string, live: boolean): Promise<void> {
    return repo.showStaged(db, ids, holder, live);
  }

  /** Every version an import is writing or left, with the process that writes it. */
  staged(db: Executor): Promise<Array<{ id: number; import_stage: string }>> {
    return repo.staged(db);
  }

  /** Removes a staged version and everything in it for good (its search entries first: see import.stage.ts). */
  removeStaged(db: Executor, id: number, holder: string): Promise<void> {
    return repo.removeStaged(db, id, holder);
  }

  /** Serialises the writers of a version's list of sections on PostgreSQL (a row lock on the version). */
  lockSections(db: Executor, versionId: number): Promise<void> {
    return repo.lockVersion(db, this.dialect, versionId);
  }

  /** A version of the scope's project, placed after the others. */
  async create(ctx: UseCaseContext, input: VersionCreateInput): Promise<Version> {
    assertNotBlank('name', input.name);
    if (input.slug !== undefined) assertVersionSlug('slug', input.slug);
    const projectId = ctx.scope.project.id;
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const slug = await pickSlug(trx, 'versions', projectId, {
        kind: 'version',
        explicit: input.slug,
        title: input.name,
        fallback: 'version',
        reserved: RESERVED_VERSION_SLUGS,
      });
      const now = toStoredDate(this.clock.now());
      const version = presentVersion(
        await repo.insert(trx, {
          project_id: projectId,
          name: input.name,
          slug,
          published: int(input.published ?? false),
          ordr: await nextOrdr(trx, 'versions', projectId),
          deleted_at: null,
          created: now,
          updated: now,
        }),
      );
      await this.changes.record(tx, { type: 'version.created', projectId, version });
      return version;
    });
  }

  async update(ctx: UseCaseContext, id: number, input: VersionUpdateInput): Promise<Version> {
    if (input.name === undefined && input.slug === undefined && input.published === undefined) {
      throw new BadRequestError('Give at least one of name, slug, published.', [
        { field: 'body', message: 'must have at least one of name, slug, published' },
      ]);
    }
    if (input.name !== undefined) assertNotBlank('body.name', input.name);
    if (input.slug !== undefined) assertVersionSlug('body.slug', input.slug);
    return inTransaction(this.db, ctx, async (tx) => {
      const before = await this.resolve(tx.transaction, ctx.scope, { id });
      assertIfMatch(ctx.ifMatch, versionTag(presentVersion(before)));
      let row: VersionRow;
      try {
        row = await repo.update(tx.transaction, id, {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.slug !== undefined ? { slug: input.slug } : {}),
          ...(input.published !== undefined ? { published: int(input.published) } : {}),
          updated: toStoredDate(this.clock.now()),
        });
      } catch (error) {
        if (error instanceof UniqueViolationError && input.slug !== undefined)
          throw slugConflict('version', input.slug);
        throw error;
      }
      const version = presentVersion(row);
      await this.changes.record(tx, {
        type: 'version.updated',
        projectId: ctx.scope.project.id,
        version,
        before: presentVersion(before),
      });
      return version;
    });
  }

  /**
   * Deletes a version: it and everything in it leave every read at once. The row stays (with
   * `deleted_at`), keeping its slug. The project's last published version cannot go: readers would
   * have no default version left.
   */
  async delete(ctx: UseCaseContext, id: number): Promise<Record<string, never>> {
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const projectId = ctx.scope.project.id;
      await repo.lockProject(trx, this.dialect, projectId);
      const row = await this.resolve(trx, ctx.scope, { id });
      assertIfMatch(ctx.ifMatch, versionTag(presentVersion(row)));
      if (row.published === 1 && (await repo.countPublished(trx, projectId)) <= 1) {
        throw new ConflictError(
          `Version ${id} is the project's last published version: publish another one before deleting it.`,
        );
      }
      const now = toStoredDate(this.clock.now());
      const deleted = await repo.update(trx, id, { deleted_at: now, updated: now });
      await this.changes.record(tx, { type: 'version.deleted', projectId, version: presentVersion(deleted) });
      return {};
    });
  }
}
