import { sql, type Insertable } from 'kysely';
import type { DialectName } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import type { WebhookAttemptsTable } from '../../db/schema.ts';
import type { DeliveryRow } from './webhooks.presenter.ts';

// The outbox's side of the deliveries: claimed, leased, finished, purged (webhooks.dispatcher.ts).
// Writing them, and the webhooks themselves, is webhooks.repository.ts.

/** A delivery claimed for sending, with what sending it needs. */
export interface ClaimedDelivery {
  id: number;
  webhookId: number;
  messageId: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
}

/** How an attempt ended, as stored. */
export interface AttemptOutcome {
  status: DeliveryRow['status'];
  attempts: number;
  nextAttemptAt: string;
  completedAt: string | null;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  started: string;
}

export const outboxRepository = {
  /**
   * Due deliveries that may be sent now: pending, due, not leased to anyone, of a live webhook, and
   * with no earlier pending delivery of the same webhook and resource (order per resource). On
   * PostgreSQL the rows are locked, skipping those another instance is claiming at this moment.
   */
  candidates(
    db: Executor,
    dialect: DialectName,
    now: string,
    limit: number,
    /** webhooks this instance is busy enough with: others' deliveries are not to wait behind theirs */
    skipWebhooks: readonly number[],
  ) {
    let query = db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select([
        'd.id',
        'd.webhook_id as webhookId',
        'd.message_id as messageId',
        'd.payload',
        'd.attempts',
        'w.url',
        'w.secret',
      ])
      .where('d.status', '=', 'pending')
      .where('d.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('d.claimed_until', 'is', null), eb('d.claimed_until', '<', now)]))
      .where('w.deleted_at', 'is', null)
      .$if(skipWebhooks.length > 0, (q) => q.where('d.webhook_id', 'not in', skipWebhooks))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('webhook_deliveries as e')
              .select(sql<number>`1`.as('one'))
              .whereRef('e.webhook_id', '=', 'd.webhook_id')
              .whereRef('e.resource_key', '=', 'd.resource_key')
              .where('e.status', '=', 'pending')
              .whereRef('e.id', '<', 'd.id'),
          ),
        ),
      )
      .orderBy('d.next_attempt_at')
      .orderBy('d.id')
      .limit(limit);
    // Only the delivery rows: locking the webhook's row would make instances skip each other's work.
    if (dialect === 'postgres') query = query.forUpdate('d').skipLocked();
    return query.execute() as Promise<ClaimedDelivery[]>;
  },

  async lease(db: Executor, ids: number[], until: string, token: string): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable('webhook_deliveries')
      .set({ claimed_until: until, claim_token: token })
      .where('id', 'in', ids)
      .execute();
  },

  /** Stores an attempt's end, if the lease is still ours; false when it is not (deleted meanwhile). */
  async finish(db: Executor, id: number, token: string, outcome: AttemptOutcome): Promise<boolean> {
    const result = await db
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.status,
        attempts: outcome.attempts,
        next_attempt_at: outcome.nextAttemptAt,
        completed_at: outcome.completedAt,
        last_status_code: outcome.statusCode,
        last_duration_ms: outcome.durationMs,
        last_error: outcome.error,
        claimed_until: null,
        claim_token: null,
      })
      .where('id', '=', id)
      .where('claim_token', '=', token)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    const attempt: Insertable<WebhookAttemptsTable> = {
      delivery_id: id,
      attempt: outcome.attempts,
      started: outcome.started,
      status_code: outcome.statusCode,
      duration_ms: outcome.durationMs,
      error: outcome.error,
    };
    await db.insertInto('webhook_attempts').values(attempt).execute();
    return true;
  },

  /** Removes deliveries delivered or given up before `before`, with their attempts; how many. */
  async purge(db: Executor, before: string): Promise<number> {
    const finished = db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '<>', 'pending')
      .where('completed_at', '<', before);
    await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', finished).execute();
    const result = await db
      .deleteFrom('webhook_deliveries')
      .where('status', '<>', 'pending')
      .where('completed_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Deliveries still pending, due or not: a count over the (status, next_attempt_at) index. */
  async countPending(db: Executor): Promise<number> {
    const row = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number | string>().as('pending'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    return Number(row.pending);
  },

  /** Gives a lease back unused (the dispatcher stops): the delivery is due again at once. */
  async release(db: Executor, id: number, token: string): Promise<void> {
    await db
      .updateTable('webhook_deliveries')
      .set({ claimed_until: null, claim_token: null })
      .where('id', '=', id)
      .where('claim_token', '=', token)
      .execute();
  },
};
