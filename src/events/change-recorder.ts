import type { Transaction } from 'kysely';
import { TurnBudget } from '../shared/turns.ts';
import type { Actor, TransactionContext } from '../auth/actor.ts';
import type { Clock } from '../clock.ts';
import { afterCommit } from '../db/after-commit.ts';
import type { Database } from '../db/schema.ts';
import { ChangeWrites } from '../db/change-writes.ts';

/**
 * A change as subscribers receive it: the event, who made it, from where, and when. The recorder is
 * generic over the events so that this floor names none of the modules whose resources they carry;
 * the union is src/modules/changes/change-events.ts.
 */
export interface RecordedChange<E> {
  event: E;
  actor: Actor;
  ipAddress: string | null;
  /** milliseconds since the epoch, from the app's clock */
  at: number;
}

/**
 * Follows changes inside their transaction: what it writes commits or rolls back with the change
 * (the audit entry, the search index, the webhook outbox).
 * Writes nothing reads back in the transaction go to `writes`, sent together once every subscriber
 * has run; a subscriber that reads what another may have queued flushes them first.
 */
export type ChangeSubscriber<E> = (
  trx: Transaction<Database>,
  change: RecordedChange<E>,
  writes: ChangeWrites,
) => Promise<void>;

/**
 * Follows changes once their transaction has committed, and never when it rolls back: work that must
 * not follow a change that did not happen (a render ahead, link scans queued, a cache forgotten).
 */
export type CommittedSubscriber<E> = (change: RecordedChange<E>) => void;

/**
 * Changes written in steps that nobody may see yet (an import on SQLite: decision 0020): recorded in
 * each step's transaction for the subscribers that derive rows hidden with the change's own, and held
 * here once that step has committed, for the others to hear of when the whole is released.
 */
export class StagedChanges<E> {
  readonly held: Array<RecordedChange<E>> = [];

  /** `compact`: what is kept of a change, the same to its subscribers in less memory */
  constructor(private readonly compact: (change: RecordedChange<E>) => RecordedChange<E> = (c) => c) {}

  hold(change: RecordedChange<E>): void {
    this.held.push(this.compact(change));
  }
}

/**
 * The one way a change is recorded: in the change's transaction, handed to every subscriber in turn;
 * then, once the transaction's owner has committed it, to every after-commit subscriber.
 */
export class ChangeRecorder<E> {
  private readonly subscribers: Array<{ subscriber: ChangeSubscriber<E>; derived: boolean }> = [];
  private readonly committedSubscribers: CommittedSubscriber<E>[] = [];
  /** the transactions whose changes are staged, and where they are held */
  private readonly stages = new WeakMap<Transaction<Database>, StagedChanges<E>>();

  constructor(private readonly clock: Clock) {}

  /**
   * `derived`: what the subscriber writes is derived from the change's rows and hidden with them
   * (the search index, former slugs), so it runs as a staged change is written; the others (the
   * audit log, the webhook outbox) hear of it only when its stage is released.
   */
  subscribe(subscriber: ChangeSubscriber<E>, options: { derived?: boolean } = {}): void {
    this.subscribers.push({ subscriber, derived: options.derived === true });
  }

  /**
   * The changes recorded in `trx` are staged: the derived subscribers follow them at once, and each
   * is held in `stage` once `trx` has committed (a rollback, or one to a savepoint, drops it).
   */
  stage(trx: Transaction<Database>, stage: StagedChanges<E>): void {
    this.stages.set(trx, stage);
  }

  /**
   * The staged changes, in the transaction that makes what they did visible: the subscribers that
   * did not follow them yet do now, in the order they were made, and the after-commit ones once that
   * transaction has committed.
   */
  async release(ctx: Pick<TransactionContext, 'transaction'>, stage: StagedChanges<E>): Promise<void> {
    const others = this.subscribers.filter((s) => !s.derived);
    // The event loop answers between changes once a turn's budget is spent (reads see none of this
    // transaction's rows meanwhile).
    // The writes of the changes heard in one turn are sent together (their audit entries, one insert:
    // ChangeWrites); a subscriber that reads what an earlier one queued flushes first, as in record.
    const turns = new TurnBudget();
    let writes = new ChangeWrites(ctx.transaction);
    for (const change of stage.held) {
      for (const { subscriber } of others) await subscriber(ctx.transaction, change, writes);
      this.afterCommit(ctx.transaction, change);
      if (!turns.spent()) continue;
      await writes.flush();
      writes = new ChangeWrites(ctx.transaction);
      await turns.pass();
    }
    await writes.flush();
    stage.held.length = 0;
  }

  /** The after-commit phase: `subscriber` hears of each change once its transaction committed. */
  subscribeCommitted(subscriber: CommittedSubscriber<E>): void {
    this.committedSubscribers.push(subscriber);
  }

  /**
   * `writes`, when given, holds the change's own writes queued already (its history row), sent with
   * the subscribers' in one go; every queued write is done when this returns.
   */
  async record(
    ctx: Pick<TransactionContext, 'actor' | 'ipAddress' | 'transaction'>,
    event: E,
    writes: ChangeWrites = new ChangeWrites(ctx.transaction),
  ): Promise<void> {
    const change: RecordedChange<E> = {
      event,
      actor: ctx.actor,
      ipAddress: ctx.ipAddress,
      at: this.clock.now(),
    };
    const stage = this.stages.get(ctx.transaction);
    for (const { subscriber, derived } of this.subscribers) {
      if (stage === undefined || derived) await subscriber(ctx.transaction, change, writes);
    }
    await writes.flush();
    if (stage !== undefined) afterCommit(ctx.transaction, () => stage.hold(change));
    else this.afterCommit(ctx.transaction, change);
  }

  private afterCommit(trx: Transaction<Database>, change: RecordedChange<E>): void {
    for (const subscriber of this.committedSubscribers) afterCommit(trx, () => subscriber(change));
  }
}
