import type SQLite from 'better-sqlite3';
import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { WebhookDeliveriesTable, WebhooksTable } from '../../db/schema.ts';
import type { AttemptRow, DeliveryRow, WebhookRow } from './webhooks.presenter.ts';

const PUBLIC_COLUMNS = ['id', 'url', 'events', 'description', 'created', 'versions'] as const;

export const webhooksRepository = {
  /**
   * SQLite: a reader of a project's webhook stamp (migrations/0018-webhook-stamps.ts), one point read
   * by the primary key, as text ('0' when the project has no row). Its statement is prepared on the
   * connection given at the first read (the table exists once migrations have run) and run on that
   * connection directly: called inside a transaction of the connection, it reads in that transaction.
   */
  webhookStamp(sqlite: SQLite.Database): (projectId: number) => string {
    let statement: SQLite.Statement<[number], number | bigint | string> | null = null;
    return (projectId) => {
      statement ??= sqlite
        .prepare<[number], number | bigint | string>('select stamp from webhook_stamps where project_id = ?')
        .pluck();
      return String(statement.get(projectId) ?? 0);
    };
  },

  insert(db: Executor, values: Insertable<WebhooksTable>) {
    return db.insertInto('webhooks').values(values).returning(PUBLIC_COLUMNS).executeTakeFirstOrThrow();
  },

  listLive(db: Executor, projectId: number) {
    return db
      .selectFrom('webhooks')
      .select(PUBLIC_COLUMNS)
      .where('project_id', '=', projectId)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .execute();
  },

  /** The outbox's one read per change: the project's live webhooks and what they receive. */
  subscriptions(db: Executor, projectId: number) {
    return db
      .selectFrom('webhooks')
      .select(['id', 'events', 'versions'])
      .where('project_id', '=', projectId)
      .where('deleted_at', 'is', null)
      .execute();
  },

  findLive(db: Executor, projectId: number, id: number) {
    return db
      .selectFrom('webhooks')
      .select(PUBLIC_COLUMNS)
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  },

  async projectOf(db: Executor, id: number): Promise<number | undefined> {
    const row = await db
      .selectFrom('webhooks')
      .select('project_id')
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row?.project_id;
  },

  /** Soft delete; its pending deliveries are given up, and a claim in flight no longer counts. */
  async softDelete(db: Executor, id: number, now: string): Promise<void> {
    await db.updateTable('webhooks').set({ deleted_at: now }).where('id', '=', id).execute();
    await db
      .updateTable('webhook_deliveries')
      .set({
        status: 'failed',
        last_error: 'The webhook was deleted.',
        completed_at: now,
        claimed_until: null,
        claim_token: null,
      })
      .where('webhook_id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  },

  /**
   * PostgreSQL: a change's delivery to every live webhook of the project that receives its event type
   * and whose version scope holds every version the event names (`versions`; null: it names none),
   * found and written by one statement, unsent (the change queues it with its other writes). Each
   * row's message id is `msg_` and 18 bytes in base64url: the 14 random ones given, then the webhook's
   * id, so the rows of one change differ. Returns a row per delivery written.
   */
  deliveriesToSubscribers(
    db: Executor,
    projectId: number,
    delivery: {
      randomHex: string;
      eventType: string;
      resourceKey: string;
      payload: string;
      created: string;
      versions: readonly number[] | null;
    },
  ) {
    const versions = delivery.versions;
    const text = (value: string) => sql<string>`cast(${value} as text)`;
    return db
      .insertInto('webhook_deliveries')
      .columns([
        'webhook_id',
        'message_id',
        'event_type',
        'resource_key',
        'payload',
        'status',
        'attempts',
        'next_attempt_at',
        'created',
      ])
      .expression((eb) =>
        eb
          .selectFrom('webhooks as w')
          .select([
            'w.id',
            sql<string>`'msg_' || translate(encode(decode(${delivery.randomHex}, 'hex') || int4send(cast(w.id as int4)), 'base64'), '+/', '-_')`.as(
              'message_id',
            ),
            text(delivery.eventType).as('event_type'),
            text(delivery.resourceKey).as('resource_key'),
            text(delivery.payload).as('payload'),
            sql.lit('pending').as('status'),
            sql.lit(0).as('attempts'),
            text(delivery.created).as('next_attempt_at'),
            text(delivery.created).as('created'),
          ])
          .where('w.project_id', '=', projectId)
          .where('w.deleted_at', 'is', null)
          .where(sql<boolean>`cast(w.events as jsonb) @> jsonb_build_array(${text(delivery.eventType)})`)
          .$if(versions !== null, (q) =>
            q.where((eb) =>
              eb.or([
                eb('w.versions', 'is', null),
                sql<boolean>`cast(w.versions as jsonb) @> cast(${text(JSON.stringify(versions))} as jsonb)`,
              ]),
            ),
          ),
      )
      .returning('id');
  },

  async insertDeliveries(db: Executor, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
    if (rows.length > 0) await this.deliveryInsertion(db, rows).execute();
  },

  /** The insert of deliveries (at least one), unsent: a change queues it with its other writes. */
  deliveryInsertion(db: Executor, rows: Insertable<WebhookDeliveriesTable>[]) {
    return db.insertInto('webhook_deliveries').values(rows);
  },

  /** A page of a webhook's deliveries, newest first, below the id `before` when given. */
  deliveries(db: Executor, webhookId: number, before: number | null, limit: number): Promise<DeliveryRow[]> {
    let query = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
    if (before !== null) query = query.where('id', '<', before);
    return query.orderBy('id', 'desc').limit(limit).execute();
  },

  attemptsOf(db: Executor, deliveryIds: number[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', 'in', deliveryIds)
      .orderBy('delivery_id')
      .orderBy('attempt')
      .execute();
  },
};

export type { WebhookRow };
