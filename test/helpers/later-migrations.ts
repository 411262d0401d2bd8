import { type Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.ts';

/**
 * Undoes what the migrations after 0018 made that cannot be made twice, so that a test which runs
 * them again (as a database of an older build would) finds them undone. 0020's is made so that it
 * can run again over itself.
 */
export const LATER_MIGRATIONS = [
  '0019-staged-imports',
  '0020-feedback',
  '0021-reader-login',
  '0023-reference-history',
  '0024-bounded-storage',
  '0025-history-newest-index',
] as const;

export async function undoLaterMigrations(db: Kysely<Database>): Promise<void> {
  await undoHistoryNewestIndex(db);
  await undoBoundedStorage(db);
  await undoReferenceHistory(db);
  await undoReaderLogin(db);
  await db.schema.dropIndex('versions_import_stage_idx').execute();
  await db.schema.alterTable('versions').dropColumn('import_stage').execute();
}

/** What 0021 made: the sign-in links, the sessions, the mail outbox and the project's JWT key. */
export async function undoReaderLogin(db: Kysely<Database>): Promise<void> {
  for (const table of ['reader_login_tokens', 'reader_sessions', 'mail_outbox']) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable('projects').dropColumn('reader_jwt_key').execute();
}

/** What 0023 made: the revisions of references. */
export async function undoReferenceHistory(db: Kysely<Database>): Promise<void> {
  await db.schema.dropTable('reference_revisions').execute();
}

/** What 0024 made: packed revisions' column and stored renders' weights. */
export async function undoBoundedStorage(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('page_history').dropColumn('contents').execute();
  await db.schema.alterTable('rendered_contents').dropColumn('bytes').execute();
}

/** What 0025 made: the index of revisions by page and id, in place of the one by page. */
export async function undoHistoryNewestIndex(db: Kysely<Database>): Promise<void> {
  await db.schema.dropIndex('page_history_page_id_idx').execute();
  await db.schema.createIndex('page_history_page_idx').on('page_history').column('page_id').execute();
}
