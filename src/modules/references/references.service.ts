import { setImmediate } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { assertMay, assertVersionInScope, type Scope, type UseCaseContext } from '../../auth/actor.ts';
import type { Permission } from '../../auth/permissions.ts';
import type { Clock } from '../../clock.ts';
import type { DialectName } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { nextOrdr, pickSlug } from '../../db/siblings.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, BadRequestError, NotFoundError, ServiceUnavailableError } from '../../errors.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { inWriterTurns } from '../../db/writer-turns.ts';
import { formatApiDate, toStoredDate } from '../../shared/dates.ts';
import { entityTag, notModified } from '../../shared/entity-tags.ts';
import { TaskFailedError, type WorkerPool } from '../../workers/pool.ts';
import { unavailableIfTaskFails } from '../../workers/task-unavailable.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { DefinitionConverter } from './definition.converter.ts';
import { fileProblem, type DefinitionFormat } from '../../openapi/definition.parser.ts';
import type { ReferenceView } from '../../openapi/reference-view.types.ts';
import type { ChangeReport } from '../../openapi/definition-diff.types.ts';
import { ReferenceChanges, sameDefinition, type StoredDefinition } from './references.changes.ts';
import { presentReference, type Reference } from './references.presenter.ts';
import { ReferenceViews } from './reference-views.ts';
import {
  referenceRevisionsRepository as revisions,
  type RevisionAuthor,
} from './reference-revisions.repository.ts';
import {
  referencesRepository as repo,
  type DefinitionSource,
  type DefinitionText,
  type ReferenceRow,
} from './references.repository.ts';

/** A definition as read, with its entity tag; or only the tag when the client holds it already. */
export type TaggedDefinition =
  (DefinitionText & { etag: string; notModified?: false }) | { notModified: true; etag: string };

export interface ReferenceRevisionList {
  data: Array<{ revision: number; published: boolean; created: string }>;
}

/** An upload's answer: with the change report when it replaced a definition (extensions.md §8). */
export type UploadedReference = Reference & { changes?: ChangeReport };

export interface UploadInput {
  versionId: number | 'latest';
  publish: boolean;
  /** Reads the uploaded file (null: none was sent); called only once the caller may upload here. */
  readFile: () => Promise<Buffer | null>;
}

/** The permission an upload needs depends on its `publish` flag, so the service checks it. */
/** From this size on, an upload's text is written in a later turn of the event loop than it arrived in. */
const YIELD_AFTER_CHARS = 64 * 1024;
const uploadPermission = (publish: boolean): Permission => (publish ? 'reference.publish' : 'reference.edit');
/**
 * Reports made before an upload's transaction, at most, when other writes keep replacing the
 * definition meanwhile; the next one is made inside the transaction.
 */
const REPORTS_AHEAD = 2;

/** Who stores a revision, as page history records it. */
export const authorOf = (actor: UseCaseContext['actor']): RevisionAuthor =>
  actor.kind === 'key'
    ? { apiKeyId: actor.keyId, userId: actor.user?.id ?? null }
    : { apiKeyId: null, userId: null };

/** The definition an upload's report was made against is no longer the one it would replace. */
class ReplacedMeanwhile extends Error {}

export class ReferencesService {
  private readonly converter: DefinitionConverter;
  private readonly reports: ReferenceChanges;
  private readonly views: ReferenceViews;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly reader: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    private readonly versions: VersionsService,
    private readonly workers: WorkerPool,
    dialect: DialectName,
  ) {
    this.converter = new DefinitionConverter(workers);
    this.reports = new ReferenceChanges(reader, workers, dialect);
    this.views = new ReferenceViews(reader, workers);
  }

  /** A reference of the scope's project, honouring its version scope (404 / 403). */
  async resolve(db: Executor, scope: Scope, id: number): Promise<ReferenceRow> {
    const row = await repo.findById(db, scope.project.id, id);
    if (!row) throw new NotFoundError(`Reference ${id} not found.`);
    assertVersionInScope(scope, row.version_id);
    return row;
  }

  /**
   * Creates or updates the reference of the version whose title is the file's `info.title`. Two
   * uploads of a new title racing each other: the loser's insert breaks the (version, title) unique
   * constraint, and the retry finds the winner's row and updates it.
   */
  async upload(ctx: UseCaseContext, input: UploadInput): Promise<UploadedReference> {
    assertMay(ctx.actor, uploadPermission(input.publish));
    return this.store(ctx, input, true);
  }

  /** `GET /reference/{id}/changes`: from one stored definition to the other (extensions.md §8). */
  async changeReport(
    ctx: UseCaseContext,
    id: number,
    between: { from: StoredDefinition; to: StoredDefinition },
  ): Promise<ChangeReport> {
    const row = await this.resolve(ctx.transaction ?? this.reader, ctx.scope, id);
    return this.reports.between(ctx.transaction, row, between.from, between.to);
  }

  /** `GET /reference/{id}/history`: the revisions kept, newest first, without their definitions. */
  async history(ctx: UseCaseContext, id: number): Promise<ReferenceRevisionList> {
    const db = ctx.transaction ?? this.reader;
    await this.resolve(db, ctx.scope, id);
    const rows = await revisions.list(db, id);
    return {
      data: rows.map((r) => ({
        revision: r.revision,
        published: r.published === 1,
        created: formatApiDate(r.created),
      })),
    };
  }

  /**
   * The upload without its permission check, for a caller inside Quire that has checked its own (an
   * import, under `project.import`, which asks for no change report). The report is made before the
   * transaction, against the definition the upload replaces (a long step, kept out of it); should
   * another write replace that definition in between, the report is made again, and after
   * REPORTS_AHEAD such races inside the transaction, against what it replaces.
   */
  async store(ctx: UseCaseContext, input: UploadInput, report = false): Promise<UploadedReference> {
    const selector = input.versionId === 'latest' ? { latest: true as const } : { id: input.versionId };
    const version = await this.versions.resolve(ctx.transaction ?? this.reader, ctx.scope, selector);
    const bytes = await input.readFile();
    if (bytes === null) {
      throw fileProblem(
        "No file was uploaded: send the definition in the multipart/form-data field 'file' " +
          '(or as a raw application/json, application/yaml or text/yaml body).',
      );
    }
    const parsed = await this.check(bytes);
    const { title } = parsed;
    // Taking the checked text back from the thread and writing it are each long steps for a file of
    // megabytes; other requests get a turn between the two.
    if (parsed.text.length >= YIELD_AFTER_CHARS) await setImmediate();
    if (!report) return this.write(ctx, version.id, input.publish, parsed);
    for (let attempt = 1; attempt <= REPORTS_AHEAD; attempt++) {
      const replaced = await this.reports.replaced(ctx.transaction, version.id, title, input.publish);
      const changes = replaced && (await this.reports.ofUpload(replaced, parsed));
      // Back from its thread; the writes of megabytes that follow take turns (writer-turns.ts).
      if (parsed.text.length >= YIELD_AFTER_CHARS) await setImmediate();
      try {
        return await inWriterTurns(() =>
          this.write(ctx, version.id, input.publish, parsed, { replaced, changes }),
        );
      } catch (error) {
        if (!(error instanceof ReplacedMeanwhile)) throw error;
      }
    }
    return this.write(ctx, version.id, input.publish, parsed, 'in-transaction');
  }

  private write(
    ctx: UseCaseContext,
    versionId: number,
    publish: boolean,
    parsed: { text: string; format: DefinitionFormat; title: string },
    reported?: { replaced: DefinitionSource | null; changes: ChangeReport | null } | 'in-transaction',
  ): Promise<UploadedReference> {
    const { title } = parsed;
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      let changes: ChangeReport | null = null;
      if (reported !== undefined) {
        const replaced = await this.reports.replaced(trx, versionId, title, publish);
        if (reported === 'in-transaction') {
          changes = replaced && (await this.reports.ofUpload(replaced, parsed));
        } else if (!sameDefinition(replaced, reported.replaced)) {
          throw new ReplacedMeanwhile();
        } else changes = reported.changes;
      }
      const now = toStoredDate(this.clock.now());
      const existing = await repo.findByTitle(trx, versionId, title);
      const written = publish
        ? {
            published: 1,
            definition_published: parsed.text,
            format_published: parsed.format,
            definition_draft: null,
            format_draft: null,
          }
        : { definition_draft: parsed.text, format_draft: parsed.format };
      let row: ReferenceRow;
      if (existing) {
        row = await repo.update(trx, existing.id, { ...written, deleted_at: null, updated: now });
      } else {
        row = await repo.insert(trx, {
          version_id: versionId,
          title,
          slug: await pickSlug(trx, 'api_references', versionId, {
            kind: 'reference',
            title,
            fallback: 'reference',
          }),
          ordr: await nextOrdr(trx, 'api_references', versionId),
          published: 0,
          deleted_at: null,
          created: now,
          updated: now,
          ...written,
        });
      }
      await revisions.record(trx, row.id, publish ? 'published' : 'draft', authorOf(tx.actor), now);
      const reference = presentReference(row);
      await this.changes.record(tx, {
        type: 'reference.uploaded',
        projectId: ctx.scope.project.id,
        versionId: versionId,
        reference,
        created: !existing,
        published: publish,
        format: parsed.format,
      });
      return changes ? { ...reference, changes } : reference;
    });
  }

  async publish(ctx: UseCaseContext, id: number): Promise<Reference> {
    return inTransaction(this.db, ctx, async (tx) => {
      await this.resolve(tx.transaction, ctx.scope, id);
      const now = toStoredDate(this.clock.now());
      const row = await repo.publishDraft(tx.transaction, id, now);
      if (!row) throw new BadRequestError(`Reference ${id} has no draft to publish.`);
      await revisions.record(tx.transaction, id, 'published', authorOf(tx.actor), now);
      const reference = presentReference(row);
      await this.changes.record(tx, {
        type: 'reference.published',
        projectId: ctx.scope.project.id,
        versionId: row.version_id,
        reference,
        format: row.format_published,
      });
      return reference;
    });
  }

  /** The published definition, or the draft, as stored or converted to the format asked for. */
  async readDefinition(
    ctx: UseCaseContext,
    id: number,
    options: { draft: boolean; format: 'auto' | DefinitionFormat; ifNoneMatch?: string | undefined },
  ): Promise<TaggedDefinition> {
    const db = ctx.transaction ?? this.reader;
    const row = await this.resolve(db, ctx.scope, id);
    const unavailable = options.draft ? 'Draft not found' : `Reference ${id} is not published.`;
    if (!options.draft && row.published !== 1) throw new NotFoundError(unavailable);
    const stored = await repo.definition(db, id, options.draft);
    if (!stored) throw new NotFoundError(unavailable);
    // A conversion is a pure function of the stored text: a conditional read that matches converts
    // nothing and sends nothing.
    const etag = entityTag('definition', stored.text, stored.format, options.format);
    if (notModified(options.ifNoneMatch, etag)) return { notModified: true, etag };
    const format = options.format === 'auto' ? stored.format : options.format;
    const text = await unavailableIfTaskFails('The definition could not be converted', () =>
      this.converter.convert(stored.text, stored.format, format),
    );
    return { text, format, etag };
  }

  /**
   * The published definition of a reference as the reader site's page shows it (site.md §4), or null
   * when the project has no such live, published reference. The caller has found it among what readers
   * can see (ReadersService's navigation). The view is built in a worker thread and kept by the hash
   * of the stored text: the site renders the page again after any change of the project, and only a
   * new definition needs a new view.
   */
  publishedView(projectId: number, id: number): Promise<ReferenceView | null> {
    return this.views.published(projectId, id);
  }

  /** Parses and validates an upload in a worker thread, once: its text, format and title. */
  private async check(bytes: Buffer): Promise<{ text: string; format: DefinitionFormat; title: string }> {
    let result;
    try {
      result = await this.workers.run({ kind: 'checkDefinition', bytes });
    } catch (error) {
      if (!(error instanceof TaskFailedError)) throw error;
      if (error.reason === 'crashed') throw error;
      // Busy threads say nothing of the file: the same upload can succeed later.
      if (error.reason === 'busy') {
        throw new ServiceUnavailableError(`The definition could not be checked: it ${error.message}.`, 5);
      }
      throw fileProblem(`The definition could not be checked: it ${error.message}.`);
    }
    if (!result.ok) throw new AppError(result.status, result.message, result.details);
    return result;
  }
}
