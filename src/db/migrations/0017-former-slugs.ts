import { sql } from 'kysely';
import type { Migration } from './helpers.ts';

/**
 * The slugs versions, sections and pages had before they changed, so that the reader site answers
 * every address a page had with a `301` to where it is now (docs/decisions/0029-site-settings-and-redirects.md).
 * One row per former slug within its parent: a version's within its project, a section's within its
 * version, a page's within its section; `target_id` is what held it. A slug held again keeps the
 * newest holder (the primary key). Rows are written in the transaction that changes the slug.
 *
 * Pages renamed before this migration are found in their history (a revision keeps the slug it had);
 * sections and versions kept no record of former slugs, so theirs start now.
 */
export const formerSlugs: Migration = {
  name: '0017-former-slugs',
  async up({ db }) {
    await db.schema
      .createTable('former_slugs')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('parent_id', 'integer', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('target_id', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('former_slugs_pkey', ['kind', 'parent_id', 'slug'])
      .execute();
    // A slug two pages of a section had in turn goes to the one that had it last.
    const rows = (await db
      .selectFrom('page_history as h')
      .innerJoin('pages as p', 'p.id', 'h.page_id')
      .whereRef('h.slug', '<>', 'p.slug')
      .groupBy(['p.documentation_id', 'h.slug', 'p.id'])
      .select(['p.documentation_id', 'h.slug', 'p.id'])
      .select((eb) => eb.fn.max('h.id').as('last'))
      .orderBy('last')
      .execute()) as Array<{ documentation_id: number; slug: string; id: number }>;
    for (let i = 0; i < rows.length; i += 500) {
      const values = rows.slice(i, i + 500).map((row) => ({
        kind: 'page',
        parent_id: row.documentation_id,
        slug: row.slug,
        target_id: row.id,
      }));
      // Later rows (of later revisions) replace earlier ones of the same slug, batch by batch.
      const unique = [...new Map(values.map((v) => [`${v.parent_id}\n${v.slug}`, v])).values()];
      await db
        .insertInto('former_slugs')
        .values(unique)
        .onConflict((oc) =>
          oc.columns(['kind', 'parent_id', 'slug']).doUpdateSet({ target_id: sql`excluded.target_id` }),
        )
        .execute();
    }
  },
};
