import { performance } from 'node:perf_hooks';
import type { ControlledTransaction, Kysely } from 'kysely';
import type { TransactionContext, UseCaseContext } from '../../auth/actor.ts';
import { committed, dropAfterCommit } from '../../db/after-commit.ts';
import type { Database } from '../../db/schema.ts';
import { ownTransaction } from '../../db/transaction.ts';
import { StagedChanges } from '../../events/change-recorder.ts';
import { holderAlive, holdInThisProcess, type ProcessHolder } from '../../shared/process-holder.ts';
import { TurnBudget } from '../../shared/turns.ts';
import type { RecordedChange } from '../../events/change-recorder.ts';
import type { ChangeEvent, ChangeRecorder } from '../changes/change-events.ts';
import type { SearchIndexer } from '../search/search.indexer.ts';
import type { VersionsService } from '../versions/versions.service.ts';

/**
 * A step of a staged import ends once it has written this many pages or bytes, or held the writer
 * this long: its commit stays within SQLite's page cache, and other writes wait no longer.
 */
const STEP = { pages: 200, bytes: 8 * 1024 * 1024, ms: 100 };

/** Where an import writes its versions: one transaction, or the step under way. */
export interface ImportWrites {
  /** the context to write in now */
  ctx(): Promise<TransactionContext>;
  /** a version the import made, in the context given last */
  created(versionId: number): void;
  /** a page or a definition of `bytes` is written whole: a step may end here */
  wrote(bytes: number): Promise<void>;
}

/** Every write in the one transaction given (PostgreSQL, or an import inside a caller's transaction). */
export const oneTransaction = (tx: TransactionContext): ImportWrites => ({
  ctx: () => Promise.resolve(tx),
  created: () => undefined,
  wrote: () => Promise.resolve(),
});

/**
 * Imports on SQLite, written in steps (docs/decisions/0020-import-yields.md). An import only adds
 * versions: each step is a short transaction that writes into them and hides them again before it
 * commits (deleted, and named by the import in `import_stage`), so that no read, whatever its
 * connection, sees any of it; the import's last transaction makes them live. The changes a step
 * records reach the search index with it (its entries belong to the hidden version, which search
 * leaves out) and everyone else (audit, webhooks, after-commit work) in that last transaction.
 */
export class ImportStaging {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly versions: VersionsService,
    private readonly index: SearchIndexer,
    private readonly changes: ChangeRecorder,
  ) {}

  begin(ctx: UseCaseContext): StagedImport {
    return new StagedImport(this.db, this.versions, this.index, this.changes, ctx, (id, holder) =>
      this.remove(id, holder),
    );
  }

  /**
   * Removes the versions of imports that can no longer finish: their process is gone, or they ended
   * without removing what they had staged. Run at start and every few minutes.
   */
  async sweep(): Promise<number> {
    let removed = 0;
    for (const { id, import_stage } of await this.versions.staged(this.db)) {
      if (holderAlive(import_stage)) continue;
      await this.remove(id, import_stage);
      removed++;
    }
    return removed;
  }

  /**
   * A staged version and everything in it, for good: its search entries first (the version hidden,
   * none is derived again), then the rows, by their foreign keys.
   */
  private async remove(id: number, holder: string): Promise<void> {
    await ownTransaction(this.db, async (trx) => {
      await this.index.version(trx, id);
      await this.versions.removeStaged(trx, id, holder);
    });
  }
}

interface Step {
  trx: ControlledTransaction<Database>;
  ctx: TransactionContext;
  since: number;
  pages: number;
  bytes: number;
}

/** One import written in steps: begun, then released in the request's transaction, or discarded. */
export class StagedImport implements ImportWrites {
  readonly changes = new StagedChanges<ChangeEvent>(sharedContents());
  private readonly versionIds: number[] = [];
  private readonly holder: ProcessHolder = holdInThisProcess();
  private readonly base: UseCaseContext;
  private step: Step | undefined;
  /** the event loop's turns: a step holds the writer for up to STEP.ms, but never the loop as long */
  private readonly turns = new TurnBudget();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly versions: VersionsService,
    private readonly index: SearchIndexer,
    private readonly recorder: ChangeRecorder,
    ctx: UseCaseContext,
    private readonly remove: (id: number, holder: string) => Promise<void>,
  ) {
    // The steps are transactions of their own: not the caller's, nor an Idempotency-Key's, which is
    // the last one's (release).
    const { transaction: _transaction, join: _join, ...base } = ctx;
    this.base = base;
  }

  async ctx(): Promise<TransactionContext> {
    if (this.step !== undefined) return this.step.ctx;
    const trx = await this.db.startTransaction().execute();
    try {
      this.recorder.stage(trx, this.changes);
      // The step's pages are indexed together as it ends (their search entries hidden with them).
      this.index.deferPages(trx);
      await this.versions.showStaged(trx, this.versionIds, this.holder.name, false);
    } catch (error) {
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      throw error;
    }
    const ctx = { ...this.base, transaction: trx };
    this.step = { trx, ctx, since: performance.now(), pages: 0, bytes: 0 };
    return ctx;
  }

  created(versionId: number): void {
    this.versionIds.push(versionId);
  }

  async wrote(bytes: number): Promise<void> {
    const step = this.step;
    if (step === undefined) return;
    step.pages++;
    step.bytes += bytes;
    if (step.pages >= STEP.pages || step.bytes >= STEP.bytes || performance.now() - step.since >= STEP.ms)
      await this.commit();
    // Reads go on meanwhile, on the read connection (they cannot see the step's rows); writes wait
    // for the step's commit, as they would for any transaction.
    await this.turns.pass();
  }

  /** Ends the step under way: its versions hidden again, committed, its changes held for the release. */
  async commit(): Promise<void> {
    const step = this.step;
    if (step === undefined) return;
    this.step = undefined;
    try {
      await this.index.pagesPending(step.trx);
      await this.versions.hideStaged(step.trx, this.versionIds, this.holder.name);
      await step.trx.commit().execute();
    } catch (error) {
      dropAfterCommit(step.trx);
      await step.trx
        .rollback()
        .execute()
        .catch(() => undefined);
      throw error;
    }
    committed(step.trx);
  }

  /**
   * In the import's last transaction (the request's, or an Idempotency-Key's): its versions made
   * live, and its changes heard by every subscriber that has not heard of them yet.
   */
  async release(tx: TransactionContext): Promise<void> {
    await this.commit();
    await this.versions.showStaged(tx.transaction, this.versionIds, this.holder.name, true);
    await this.recorder.release(tx, this.changes);
  }

  /** The import is over, whole or not: what it staged and did not release is anyone's to remove. */
  end(): void {
    this.holder.end();
  }

  /** The import failed: the step under way rolled back, and its versions removed. */
  async discard(): Promise<void> {
    const step = this.step;
    this.step = undefined;
    this.changes.held.length = 0;
    if (step !== undefined) {
      dropAfterCommit(step.trx);
      await step.trx
        .rollback()
        .execute()
        .catch(() => undefined);
    }
    for (const id of this.versionIds) await this.remove(id, this.holder.name);
  }
}

/**
 * The events of one page repeat its contents (created, published, given its draft), each read back
 * from the database as a string of its own: held until the release, each text is kept once.
 */
function sharedContents(): (change: RecordedChange<ChangeEvent>) => RecordedChange<ChangeEvent> {
  const kept = new Map<number, string[]>();
  const share = (pageId: number, text: string | null): string | null => {
    if (text === null) return null;
    const texts = kept.get(pageId);
    const same = texts?.find((known) => known === text);
    if (same !== undefined) return same;
    if (texts === undefined) kept.set(pageId, [text]);
    else texts.push(text);
    return text;
  };
  return (change) => {
    const { event } = change;
    if (event.type !== 'page.created' && event.type !== 'page.published' && event.type !== 'page.updated')
      return change;
    const { page } = event;
    const contentDraft = share(page.id, page.contentDraft);
    const contentPublished = share(page.id, page.contentPublished);
    return { ...change, event: { ...event, page: { ...page, contentDraft, contentPublished } } };
  };
}
