import { sql } from 'kysely';
import type { Migration } from './helpers.ts';
import { notNull, withId } from './helpers.ts';

/**
 * The search index again, with `version_id` and `version_slug` optional and a `changelog_post_id`:
 * changelog posts (extensions §1) are searchable and belong to a project, not to a version. The index
 * is derived data, so it is dropped and created anew; its data step (src/upgrade.ts) fills it again
 * from what is stored, in this migration's transaction.
 */
export const searchPosts: Migration = {
  name: '0007-search-posts',
  async up({ db, dialect }) {
    if (dialect === 'sqlite') await sql`drop table search_fts`.execute(db);
    await db.schema.dropTable('search_entries').execute();
    let table = withId(db.schema.createTable('search_entries'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('version_id', 'integer', (c) => c.references('versions.id').onDelete('cascade'))
      .addColumn('documentation_id', 'integer')
      .addColumn('page_id', 'integer')
      .addColumn('reference_id', 'integer')
      .addColumn('changelog_post_id', 'integer')
      .addColumn('section_type', 'text', notNull)
      .addColumn('version_slug', 'text')
      .addColumn('section', 'text', notNull)
      .addColumn('page', 'text', notNull)
      .addColumn('fragment', 'text', notNull)
      .addColumn('title', 'text', notNull)
      .addColumn('content', 'text', notNull)
      .addColumn('ordr', 'integer', notNull);
    if (dialect === 'postgres') {
      table = table
        .addColumn('document', sql`tsvector`, (c) =>
          c
            .generatedAlwaysAs(
              sql`setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', content), 'B')`,
            )
            .stored(),
        )
        .addColumn('title_document', sql`tsvector`, (c) =>
          c.generatedAlwaysAs(sql`to_tsvector('english', title)`).stored(),
        );
    }
    await table.execute();
    await db.schema.createIndex('search_entries_page_idx').on('search_entries').column('page_id').execute();
    await db.schema
      .createIndex('search_entries_reference_idx')
      .on('search_entries')
      .column('reference_id')
      .execute();
    await db.schema
      .createIndex('search_entries_post_idx')
      .on('search_entries')
      .column('changelog_post_id')
      .execute();
    await db.schema
      .createIndex('search_entries_version_idx')
      .on('search_entries')
      .columns(['version_id', 'section'])
      .execute();
    await db.schema
      .createIndex('search_entries_project_idx')
      .on('search_entries')
      .columns(['project_id', 'id'])
      .execute();
    if (dialect === 'postgres') {
      await sql`create index search_entries_document_idx on search_entries using gin (document)`.execute(db);
    } else {
      await sql`create virtual table search_fts using fts5(title, content, scope, tokenize = 'porter unicode61 remove_diacritics 2')`.execute(
        db,
      );
    }
  },
};
