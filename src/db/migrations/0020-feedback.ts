import type { Migration } from './helpers.ts';
import { notNull, withId } from './helpers.ts';

/**
 * Readers' answers to "Was this page helpful?" on the site (site.md §7,
 * docs/decisions/0031-reader-feedback.md): the page, its version, yes or no, an optional message and
 * when. Nothing about the reader is kept. Rows go with their page, version or project.
 * Made so that it can run again over what it made (tests run the later migrations again).
 */
export const feedback: Migration = {
  name: '0020-feedback',
  async up({ db, dialect }) {
    await withId(db.schema.createTable('feedback').ifNotExists(), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('version_id', 'integer', (c) => c.notNull().references('versions.id').onDelete('cascade'))
      .addColumn('page_id', 'integer', (c) => c.notNull().references('pages.id').onDelete('cascade'))
      .addColumn('helpful', 'integer', notNull)
      .addColumn('message', 'text')
      .addColumn('created', 'text', notNull)
      .execute();
    // Newest first: the project's list, a page's list, and a version's counts per page.
    await db.schema
      .createIndex('feedback_project_idx')
      .ifNotExists()
      .on('feedback')
      .columns(['project_id', 'id'])
      .execute();
    await db.schema
      .createIndex('feedback_page_idx')
      .ifNotExists()
      .on('feedback')
      .columns(['page_id', 'id'])
      .execute();
    await db.schema
      .createIndex('feedback_version_idx')
      .ifNotExists()
      .on('feedback')
      .columns(['version_id', 'page_id'])
      .execute();
  },
};
