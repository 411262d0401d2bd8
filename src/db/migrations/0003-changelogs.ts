import type { Migration } from './helpers.ts';
import { notNull, withId } from './helpers.ts';

/** A project's changelogs: feeds of posts (extensions §1), made with `bin/quire changelog create`. */
export const changelogs: Migration = {
  name: '0003-changelogs',
  async up({ db, dialect }) {
    await withId(db.schema.createTable('changelogs'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('title', 'text', notNull)
      .addColumn('slug', 'text', notNull)
      .addColumn('created', 'text', notNull)
      .addColumn('updated', 'text', notNull)
      .addUniqueConstraint('changelogs_project_slug_unique', ['project_id', 'slug'])
      .execute();
  },
};
