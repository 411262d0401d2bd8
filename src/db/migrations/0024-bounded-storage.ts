import { sql } from 'kysely';
import type { Migration } from './helpers.ts';

/**
 * Storage that stays bounded (decision 0038). `page_history.contents` holds a revision's contents
 * packed (whole and deflated, or as the change from an earlier revision); rows written before keep
 * theirs in `content_draft` and `content_published`, read as they are, and are not re-encoded.
 * `rendered_contents.bytes` is what a stored output weighs, so that the store can be held under
 * RENDER_STORE_MB oldest first; the outputs stored already are weighed here.
 */
export const boundedStorage: Migration = {
  name: '0024-bounded-storage',
  async up({ db, dialect }) {
    await db.schema
      .alterTable('page_history')
      .addColumn('contents', dialect === 'sqlite' ? 'blob' : 'bytea')
      .execute();
    await db.schema
      .alterTable('rendered_contents')
      .addColumn('bytes', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    const length =
      dialect === 'sqlite' ? sql`length(cast(key || body as blob))` : sql`octet_length(key || body)`;
    await sql`update rendered_contents set bytes = ${length}`.execute(db);
  },
};
