import type { Transaction } from 'kysely';
import type { TransactionContext } from '../auth/actor.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { ChangeEvent, RecordedChange } from './change-events.ts';
import { ChangeWrites } from './change-writes.ts';

/**
 * Follows changes inside their transaction: what it writes commits or rolls back with the change
 * (the audit entry today; a search index or a webhook outbox may join the list at the composition root).
 * Writes nothing reads back in the transaction go to `writes`, sent together once every subscriber
 * has run; a subscriber that reads what another may have queued flushes them first.
 */
export type ChangeSubscriber = (
  trx: Transaction<Database>,
  change: RecordedChange,
  writes: ChangeWrites,
) => Promise<void>;

/** The one way a change is recorded: in the change's transaction, handed to every subscriber in turn. */
export class ChangeRecorder {
  private readonly subscribers: ChangeSubscriber[] = [];

  constructor(private readonly clock: Clock) {}

  subscribe(subscriber: ChangeSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /**
   * `writes`, when given, holds the change's own writes queued already (its history row), sent with
   * the subscribers' in one go; every queued write is done when this returns.
   */
  async record(
    ctx: Pick<TransactionContext, 'actor' | 'ipAddress' | 'transaction'>,
    event: ChangeEvent,
    writes: ChangeWrites = new ChangeWrites(ctx.transaction),
  ): Promise<void> {
    const change: RecordedChange = {
      event,
      actor: ctx.actor,
      ipAddress: ctx.ipAddress,
      at: this.clock.now(),
    };
    for (const subscriber of this.subscribers) await subscriber(ctx.transaction, change, writes);
    await writes.flush();
  }
}
