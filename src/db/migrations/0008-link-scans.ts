import type { Migration } from './helpers.ts';
import { notNull } from './helpers.ts';

/**
 * Link scans kept between reports (N4): what the broken-links report reads of a content, stored under
 * the key its in-memory cache uses (the project's variables and the source, by digest). Derived data
 * that any instance may add to and the purge may remove at any time: a report scans what it lacks.
 */
export const linkScans: Migration = {
  name: '0008-link-scans',
  async up({ db }) {
    await db.schema
      .createTable('link_scans')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('scan', 'text', notNull)
      .addColumn('created', 'text', notNull)
      .execute();
    await db.schema.createIndex('link_scans_created').on('link_scans').column('created').execute();
  },
};
