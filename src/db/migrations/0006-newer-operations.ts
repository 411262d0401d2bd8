import { sql } from 'kysely';
import type { Migration } from './helpers.ts';
import { notNull, withId } from './helpers.ts';

/**
 * What the platform's newer operations (extensions §1) need from the schema:
 *
 * - `pages.source_page_id` and `categories.source_category_id`: a clone remembers what it was copied
 *   from. Reports follow pages back through clones; the clone itself maps parents and categories
 *   through them, set-based.
 * - `page_history.user_id`: the user whose key made each revision, kept even when the key is later
 *   given to someone else or revoked (filled for existing revisions from their keys).
 * - `changelog_posts`: the posts of a changelog, newest first by `(created, id)`.
 */
export const newerOperations: Migration = {
  name: '0006-newer-operations',
  async up({ db, dialect }) {
    await db.schema
      .alterTable('pages')
      .addColumn('source_page_id', 'integer', (c) => c.references('pages.id').onDelete('set null'))
      .execute();
    await db.schema.createIndex('pages_source_idx').on('pages').column('source_page_id').execute();
    await db.schema
      .alterTable('categories')
      .addColumn('source_category_id', 'integer', (c) => c.references('categories.id').onDelete('set null'))
      .execute();
    await db.schema
      .createIndex('categories_source_idx')
      .on('categories')
      .column('source_category_id')
      .execute();
    await db.schema
      .alterTable('page_history')
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .execute();
    await sql`update page_history set user_id = (
        select k.user_id from api_keys k where k.id = page_history.api_key_id
      ) where api_key_id is not null`.execute(db);
    // Purges look deleted rows up by date. Partial: an index of every page by `deleted_at` (null for
    // nearly all) would tempt SQLite's planner into reading a whole table of live pages through it.
    await db.schema
      .createIndex('pages_deleted_idx')
      .on('pages')
      .column('deleted_at')
      .where(sql.ref('deleted_at'), 'is not', null)
      .execute();

    await withId(db.schema.createTable('changelog_posts'), dialect)
      .addColumn('changelog_id', 'integer', (c) =>
        c.notNull().references('changelogs.id').onDelete('cascade'),
      )
      .addColumn('title', 'text', notNull)
      .addColumn('slug', 'text', notNull)
      .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('content', 'text', notNull)
      .addColumn('created', 'text', notNull)
      .addColumn('updated', 'text', notNull)
      .addUniqueConstraint('changelog_posts_changelog_slug_unique', ['changelog_id', 'slug'])
      .execute();
    await db.schema
      .createIndex('changelog_posts_feed_idx')
      .on('changelog_posts')
      .columns(['changelog_id', 'created', 'id'])
      .execute();
  },
};
