import type { Kysely } from 'kysely';
import type { TransactionContext, UseCaseContext } from '../../auth/actor.ts';
import type { Database } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { ForbiddenError } from '../../errors.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import type { ChangelogsService } from '../changelogs/changelogs.service.ts';
import type { DocumentationService } from '../documentation/documentation.service.ts';
import type { FeedbackService } from '../feedback/feedback.service.ts';
import type { PagesService } from '../pages/pages.service.ts';
import type { ProjectsService } from '../projects/projects.service.ts';
import type { ReferencesService } from '../references/references.service.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { ImportArchive } from './import.archive.ts';
import { readLayout } from './import.layout.ts';
import { importTheme } from './import.git-theme.ts';
import { importChangelogs, importVariables } from './import.markdoc.ts';
import { oneTransaction, type ImportStaging, type ImportWrites, type StagedImport } from './import.stage.ts';
import type { PlannedVersion } from './import.plan.ts';
import type { ImportReport } from './import.report.ts';
import { VersionImporter, type ImportInput, type ImportRun } from './import.versions.ts';
import { inWriterTurns } from '../../db/writer-turns.ts';

/**
 * Import (extensions.md §3): an archive in the export layout becomes new versions of the project
 * through the same services as the API, so history, audit and search follow as for any change; all
 * of it or none is ever seen. The archive is checked whole before anything is written. On PostgreSQL
 * (or inside a caller's transaction) it is one transaction; on SQLite, with `staging`, the versions
 * are written in short steps while hidden and made live by the last (import.stage.ts).
 */
export class ImportService {
  /** writes each planned version */
  private readonly writer: VersionImporter;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly changes: ChangeRecorder,
    versions: VersionsService,
    documentation: DocumentationService,
    pages: PagesService,
    references: ReferencesService,
    private readonly projects: ProjectsService,
    private readonly changelogs: ChangelogsService,
    feedback: FeedbackService,
    private readonly staging: ImportStaging | null = null,
  ) {
    this.writer = new VersionImporter(versions, documentation, pages, references, feedback);
  }

  async import(ctx: UseCaseContext, bytes: Buffer, input: ImportInput): Promise<ImportReport> {
    if (ctx.scope.versions !== null) {
      throw new ForbiddenError(
        'An import adds versions: it needs a key that reaches every version of the project.',
      );
    }
    // An If-Match sent with the import names no resource it writes.
    const { ifMatch: _ifMatch, ...own } = ctx;
    ctx = own;
    const archive = await ImportArchive.open(bytes);
    try {
      const plan = await readLayout(archive, { strict: input.strict === true });
      const posts = plan.markdoc?.changelogs.reduce((n, c) => n + c.posts.length, 0) ?? 0;
      const total = posts + plan.pages + plan.versions.reduce((n, v) => n + v.references.length, 0);
      let done = 0;
      const step = (): void => {
        done++;
        input.progress?.(done, total);
      };
      input.progress?.(0, total);
      const report: ImportReport = {
        versions: [],
        documentation: 0,
        categories: 0,
        pages: 0,
        references: 0,
        warnings: [...plan.warnings],
      };
      const { legacyParts, markdoc } = plan;
      const run = (writes: ImportWrites): ImportRun => ({
        archive,
        input,
        legacyParts,
        markdoc,
        report,
        writes,
        step,
      });
      if (this.staging === null || ctx.transaction !== undefined) {
        return await inTransaction(this.db, ctx, async (tx) => {
          const whole = run(oneTransaction(tx));
          for (const planned of plan.versions) await this.writer.importVersion(whole, planned);
          return await this.finish(tx, whole);
        });
      }
      const staging = this.staging;
      // Its statements take turns with the event loop (writer-turns.ts): a 4 MB page holds no turn.
      return await inWriterTurns(() => this.importStaged(ctx, staging.begin(ctx), plan.versions, run));
    } finally {
      archive.close();
    }
  }

  /** The versions written in steps, then released in one last transaction (decision 0020). */
  private async importStaged(
    ctx: UseCaseContext,
    staged: StagedImport,
    versions: PlannedVersion[],
    run: (writes: ImportWrites) => ImportRun,
  ): Promise<ImportReport> {
    const steps = run(staged);
    let releasing = false;
    try {
      for (const planned of versions) await this.writer.importVersion(steps, planned);
      await staged.commit();
      return await inTransaction(this.db, ctx, async (tx) => {
        releasing = true;
        await staged.release(tx);
        return await this.finish(tx, steps);
      });
    } catch (error) {
      const discarded = staged.discard().catch(() => undefined);
      // Under an Idempotency-Key the last transaction is the key's, which holds the one writer until
      // the request has answered: what was staged is removed then. Otherwise before the answer.
      if (!(releasing && ctx.join !== undefined)) await discarded;
      throw error;
    } finally {
      staged.end();
    }
  }

  /** The end of every import, in its last transaction: a Git archive's changelogs, variables and theme. */
  private async finish(tx: TransactionContext, run: ImportRun): Promise<ImportReport> {
    const { archive, markdoc, report } = run;
    if (markdoc !== undefined) {
      if (markdoc.variables !== undefined)
        await importVariables(tx, this.projects, markdoc.variables, report.warnings);
      await importTheme(tx, this.projects, markdoc.theme, report.warnings);
      report.posts = await importChangelogs(tx, this.changelogs, archive, markdoc, report.warnings, run.step);
    }
    // Last, in the same transaction: whoever follows changes learns the import is whole.
    await this.changes.record(tx, { type: 'import.completed', projectId: tx.scope.project.id, report });
    return report;
  }
}
