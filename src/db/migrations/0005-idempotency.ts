import type { Migration } from './helpers.ts';
import { notNull, withId } from './helpers.ts';

/**
 * Idempotency keys (extensions §2): one row per API key and `Idempotency-Key`, claimed before the
 * change runs and completed with the answer to replay. The unique constraint is what lets one of two
 * instances claim a key and the other see it taken.
 */
export const idempotency: Migration = {
  name: '0005-idempotency',
  async up({ db, dialect }) {
    await withId(db.schema.createTable('idempotency_keys'), dialect)
      .addColumn('api_key_id', 'integer', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
      .addColumn('idempotency_key', 'text', notNull)
      .addColumn('fingerprint', 'text', notNull)
      .addColumn('status', 'integer')
      .addColumn('content_type', 'text')
      .addColumn('etag', 'text')
      .addColumn('body', 'text')
      .addColumn('created', 'text', notNull)
      .addColumn('completed', 'text')
      .addUniqueConstraint('idempotency_keys_key_unique', ['api_key_id', 'idempotency_key'])
      .execute();
    await db.schema
      .createIndex('idempotency_keys_created')
      .on('idempotency_keys')
      .column('created')
      .execute();
  },
};
