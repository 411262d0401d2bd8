import type { Migration } from './helpers.ts';
import { notNull, withId } from './helpers.ts';

/**
 * The history of references (extensions.md §8, decision 0033): `reference_revisions` holds every
 * definition stored (an upload as draft or published, a publish of the draft), numbered from 1 per
 * reference, the newest few kept. References stored before this migration start their history at
 * their next upload.
 */
export const referenceHistory: Migration = {
  name: '0023-reference-history',
  async up({ db, dialect }) {
    await withId(db.schema.createTable('reference_revisions'), dialect)
      .addColumn('reference_id', 'integer', (c) =>
        c.notNull().references('api_references.id').onDelete('cascade'),
      )
      .addColumn('revision', 'integer', notNull)
      .addColumn('published', 'integer', notNull)
      .addColumn('definition', 'text', notNull)
      .addColumn('format', 'text', notNull)
      .addColumn('api_key_id', 'integer', (c) => c.references('api_keys.id').onDelete('set null'))
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created', 'text', notNull)
      .addUniqueConstraint('reference_revisions_reference_revision_unique', ['reference_id', 'revision'])
      .execute();
  },
};
