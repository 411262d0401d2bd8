import type { Migration } from './helpers.ts';

/**
 * Who holds a running claim of an `Idempotency-Key` on SQLite (`pid:instance`): a retry that finds a
 * claim without an answer can then tell a request still running (409) from one whose process died,
 * whose change rolled back with it, and run again at once instead of five minutes later. PostgreSQL
 * keeps no running claims: the request's transaction holds an advisory lock instead (decision 0021).
 */
export const idempotencyHolder: Migration = {
  name: '0014-idempotency-holder',
  async up({ db }) {
    await db.schema.alterTable('idempotency_keys').addColumn('holder', 'text').execute();
  },
};
