import type { Transaction } from 'kysely';
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
 * The one way a change is recorded: in the change's transaction, handed to every subscriber in turn;
 * then, once the transaction's owner has committed it, to every after-commit subscriber.
 */
export class ChangeRecorder<E> {
  private readonly subscribers: ChangeSubscriber<E>[] = [];
  private readonly committedSubscribers: CommittedSubscriber<E>[] = [];

  constructor(private readonly clock: Clock) {}

  subscribe(subscriber: ChangeSubscriber<E>): void {
    this.subscribers.push(subscriber);
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
    for (const subscriber of this.subscribers) await subscriber(ctx.transaction, change, writes);
    await writes.flush();
    for (const subscriber of this.committedSubscribers)
      afterCommit(ctx.transaction, () => subscriber(change));
  }
}
