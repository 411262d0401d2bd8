import { sql } from 'kysely';
import type { Migration } from './helpers.ts';
import { notNull, withId } from './helpers.ts';

/**
 * The search index (decisions §6, extensions §4): one entry per H2 section of each page readers can
 * see and per operation of each published reference, with the text the engine matches. SQLite keeps
 * the words in an FTS5 table (porter stemming over unicode61) whose rowids are the entries' ids;
 * PostgreSQL in a generated `tsvector` (English; the title weighted A, the content B) under a GIN
 * index. Existing content is indexed by this migration's data step (src/upgrade.ts), in its
 * transaction.
 */
export const search: Migration = {
  name: '0004-search',
  async up({ db, dialect }) {
    let table = withId(db.schema.createTable('search_entries'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('version_id', 'integer', (c) => c.notNull().references('versions.id').onDelete('cascade'))
      .addColumn('documentation_id', 'integer')
      .addColumn('page_id', 'integer')
      .addColumn('reference_id', 'integer')
      .addColumn('section_type', 'text', notNull)
      .addColumn('version_slug', 'text', notNull)
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
      // `scope` holds p<project> v<version> d<section> (r for a reference): filters stay in the index.
      await sql`create virtual table search_fts using fts5(title, content, scope, tokenize = 'porter unicode61 remove_diacritics 2')`.execute(
        db,
      );
    }
  },
};
