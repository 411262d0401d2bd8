import type { ControlledTransaction, Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import { committed, dropAfterCommit } from '../../db/after-commit.ts';
import type { Database } from '../../db/schema.ts';
import { ConflictError } from '../../errors.ts';
import type { IdempotentRun, StoredAnswer } from '../../shared/idempotency-store.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { idempotencyRepository as repo, type KeptAnswer } from './idempotency.repository.ts';

/** What marks a kept answer as encrypted: no JSON text starts with a letter `s`. */
export const SEALED = 'sealed:';

/** Encrypts answers that hold a secret shown once (the webhook secrets' cipher). */
export interface AnswerSealer {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
}

/** PostgreSQL: where a key's transaction stands once the key is claimed, before the request writes. */
export const KEY_SAVEPOINT = 'quire_idempotency_key';

export const stillRunning = () =>
  new ConflictError('A request with this Idempotency-Key is still running: retry when it has answered.');

/** The key a run keeps its answer under. */
export interface KeyOfRun {
  api_key_id: number;
  idempotency_key: string;
  fingerprint: string;
}

/**
 * One request running under its key, in its own transaction. The answer is written in that
 * transaction, so it commits with the change or not at all. On SQLite the run also holds a claim
 * row, committed before it began (`claimId`), and opens its transaction at its first write, so
 * that what a request does before (a definition checked in a worker) leaves the one writer free;
 * on PostgreSQL the transaction is open from the start and holds the key's advisory lock, and the
 * answer is a row of its own.
 */
export class KeyedRun implements IdempotentRun {
  private opened: ControlledTransaction<Database> | undefined;
  private opening: Promise<ControlledTransaction<Database>> | undefined;
  /** finished or abandoned: nothing may open a transaction for it any more */
  private over = false;

  constructor(
    private readonly db: Kysely<Database>,
    transaction: ControlledTransaction<Database> | undefined,
    private readonly key: KeyOfRun,
    private readonly claimId: number | null,
    private readonly clock: Clock,
    private readonly sealer: AnswerSealer,
    private readonly ended: () => void,
  ) {
    this.opened = transaction;
  }

  get transaction(): ControlledTransaction<Database> | undefined {
    return this.opened;
  }

  open(): Promise<ControlledTransaction<Database>> {
    if (this.opened !== undefined) return Promise.resolve(this.opened);
    if (this.over) return Promise.reject(new Error('This request has already answered.'));
    this.opening ??= this.db
      .startTransaction()
      .execute()
      .then((trx) => (this.opened = trx));
    return this.opening;
  }

  async finish(answer: StoredAnswer | null, secret: boolean): Promise<void> {
    try {
      if (answer !== null && answer.status >= 500) await this.undo();
      else if (answer !== null && answer.status >= 400) await this.refusedOrForgotten(answer, secret);
      else await this.commit(answer === null ? null : this.kept(answer, secret));
    } catch (error) {
      // Whatever failed (a write, the commit), the transaction does not outlive the request: nothing
      // of it committed, or PostgreSQL's commit was cut off after it committed whole, answer and
      // all, and a retry replays it.
      await this.undo();
      throw error;
    } finally {
      this.over = true;
      this.ended();
    }
  }

  async abandon(): Promise<void> {
    try {
      await this.undo();
    } finally {
      this.over = true;
      this.ended();
    }
  }

  /** The change with its answer; when either fails, neither is kept. */
  private async commit(answer: KeptAnswer | null): Promise<void> {
    const trx = await this.open();
    if (answer === null) {
      // An answer that is not kept (a stream): the change commits, and the key is free again.
      if (this.claimId !== null) await repo.release(trx, this.claimId);
    } else {
      const written =
        this.claimId !== null
          ? await repo.complete(trx, this.claimId, answer)
          : await repo.keep(trx, { ...this.key, created: answer.completed, ...answer });
      if (!written) throw stillRunning();
    }
    await trx.commit().execute();
    // The request's changes are in: what they left for after the commit runs now, not before.
    committed(trx);
  }

  /**
   * A refusal whose answer cannot be kept (no key to seal a secret answer with, a write that fails)
   * is still sent: it changed nothing, so the retry that finds no answer kept is refused again.
   */
  private async refusedOrForgotten(answer: StoredAnswer, secret: boolean): Promise<void> {
    try {
      await this.refused(this.kept(answer, secret));
    } catch {
      await this.undo();
    }
  }

  /**
   * A refusal changes nothing: what the request wrote is undone, and its answer kept for the retry.
   * On PostgreSQL it is kept in the key's transaction, rolled back to where the request began, so
   * that the key's lock is held until the answer is there; on SQLite the claim row holds the key.
   */
  private async refused(answer: KeptAnswer): Promise<void> {
    if (this.claimId === null && this.opened !== undefined) {
      const trx = this.opened;
      await repo.rollbackTo(trx, KEY_SAVEPOINT);
      dropAfterCommit(trx);
      await repo.keep(trx, { ...this.key, created: answer.completed, ...answer });
      await trx.commit().execute();
      return;
    }
    await this.rollback();
    if (this.claimId !== null) await repo.complete(this.db, this.claimId, answer);
    else await repo.keep(this.db, { ...this.key, created: answer.completed, ...answer });
  }

  private async undo(): Promise<void> {
    if (this.opened?.isCommitted === true) return;
    await this.rollback();
    if (this.claimId !== null) await repo.release(this.db, this.claimId);
  }

  private async rollback(): Promise<void> {
    // One still opening is rolled back once open: it must not hold the writer for good.
    const trx = this.opened ?? (await this.opening?.catch(() => undefined));
    if (trx === undefined || trx.isCommitted || trx.isRolledBack) return;
    dropAfterCommit(trx);
    // A rollback that fails has lost its connection, and the transaction with it.
    await trx
      .rollback()
      .execute()
      .catch(() => undefined);
  }

  private kept(answer: StoredAnswer, secret: boolean): KeptAnswer {
    return {
      status: answer.status,
      content_type: answer.contentType,
      etag: answer.etag,
      body: secret ? `${SEALED}${this.sealer.encrypt(answer.body)}` : answer.body,
      completed: toStoredDate(this.clock.now()),
    };
  }
}
