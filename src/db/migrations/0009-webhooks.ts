import type { Migration } from './helpers.ts';
import { notNull, withId } from './helpers.ts';

/**
 * Webhooks (extensions §5): the registrations, the outbox of deliveries written in the change's own
 * transaction, and a row per attempt for the deliveries log. Dates are ISO text like every other
 * table, so the claim compares them as text on both dialects.
 */
export const webhooks: Migration = {
  name: '0009-webhooks',
  async up({ db, dialect }) {
    await withId(db.schema.createTable('webhooks'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('url', 'text', notNull)
      .addColumn('events', 'text', notNull)
      .addColumn('description', 'text')
      .addColumn('secret', 'text', notNull)
      .addColumn('created', 'text', notNull)
      .addColumn('deleted_at', 'text')
      .execute();
    // The outbox looks up a project's live webhooks on every change: one index seek, also when none.
    await db.schema
      .createIndex('webhooks_project')
      .on('webhooks')
      .columns(['project_id', 'deleted_at'])
      .execute();

    await withId(db.schema.createTable('webhook_deliveries'), dialect)
      .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('message_id', 'text', (c) => c.notNull().unique())
      .addColumn('event_type', 'text', notNull)
      .addColumn('resource_key', 'text', notNull)
      .addColumn('payload', 'text', notNull)
      .addColumn('status', 'text', notNull)
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text', notNull)
      .addColumn('claimed_until', 'text')
      .addColumn('claim_token', 'text')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_duration_ms', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created', 'text', notNull)
      .addColumn('completed_at', 'text')
      .execute();
    // The claim: pending deliveries by due time.
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute();
    // Order per resource (is an earlier one of this webhook and resource still pending?) and the
    // deliveries log of a webhook, newest first.
    await db.schema
      .createIndex('webhook_deliveries_resource')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'resource_key', 'status', 'id'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_webhook')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'id'])
      .execute();

    await withId(db.schema.createTable('webhook_attempts'), dialect)
      .addColumn('delivery_id', 'integer', (c) =>
        c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
      )
      .addColumn('attempt', 'integer', notNull)
      .addColumn('started', 'text', notNull)
      .addColumn('status_code', 'integer')
      .addColumn('duration_ms', 'integer', notNull)
      .addColumn('error', 'text')
      .execute();
    await db.schema
      .createIndex('webhook_attempts_delivery')
      .on('webhook_attempts')
      .columns(['delivery_id', 'attempt'])
      .execute();
  },
};
