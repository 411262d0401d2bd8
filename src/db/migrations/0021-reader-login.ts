import type { Migration } from './helpers.ts';
import { notNull, withId } from './helpers.ts';

/**
 * Reader login on private sites (site.md §6, docs/decisions/0030-reader-login.md):
 * - `reader_login_tokens`: the magic links sent, each as the SHA-256 of its token alone; single use.
 * - `reader_sessions`: one row per session a cookie names, so that a logout ends it everywhere and
 *   every request checks it (and the grant it names) with one read by primary key.
 * - `mail_outbox`: the mails to send, written by the request and sent after its answer, retried.
 * - `projects.reader_jwt_key`: the key a project's own login signs its tokens with.
 */
export const readerLogin: Migration = {
  name: '0021-reader-login',
  async up({ db, dialect }) {
    await db.schema.alterTable('projects').addColumn('reader_jwt_key', 'text').execute();

    await withId(db.schema.createTable('reader_login_tokens'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('access_id', 'integer', (c) =>
        c.notNull().references('reader_access.id').onDelete('cascade'),
      )
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('expires_at', 'text', notNull)
      .addColumn('used_at', 'text')
      .addColumn('created', 'text', notNull)
      .execute();

    await db.schema
      .createTable('reader_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('access_id', 'integer', (c) => c.references('reader_access.id').onDelete('cascade'))
      .addColumn('email', 'text', notNull)
      .addColumn('kind', 'text', notNull)
      .addColumn('jwt_key_digest', 'text')
      .addColumn('expires_at', 'text', notNull)
      .addColumn('ended_at', 'text')
      .addColumn('created', 'text', notNull)
      .execute();
    await db.schema
      .createIndex('reader_sessions_expiry')
      .on('reader_sessions')
      .column('expires_at')
      .execute();

    await withId(db.schema.createTable('mail_outbox'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('kind', 'text', notNull)
      .addColumn('email', 'text', notNull)
      .addColumn('site_root', 'text', notNull)
      .addColumn('next_path', 'text')
      .addColumn('status', 'text', notNull)
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text', notNull)
      .addColumn('claimed_until', 'text')
      .addColumn('claim_token', 'text')
      .addColumn('last_error', 'text')
      .addColumn('created', 'text', notNull)
      .addColumn('completed_at', 'text')
      .execute();
    await db.schema
      .createIndex('mail_outbox_due')
      .on('mail_outbox')
      .columns(['status', 'next_attempt_at'])
      .execute();
  },
};
