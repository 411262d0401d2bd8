import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { FormerSlugsTable } from '../../db/schema.ts';
import { livePage, pagesOfLiveSections } from '../../db/visibility.ts';

/** The UPDATE of many pages by id goes in chunks of this many parameters. */
const CHUNK = 500;
/** Rows of a table one step of the purge removes. */
const PURGE_CHUNK = 1000;

type PurgedTable = 'pages' | 'documentation' | 'api_references' | 'versions';

/** The mark a deleted page's slug carries (`slug~id`): no slug has `~`, so it frees the slug for others. */
export const deletedSlug = (slug: string, id: number): string => `${slug}~${id}`;

/** The slug a page had before it was deleted. */
export const liveSlug = (stored: string): string => {
  const mark = stored.lastIndexOf('~');
  return mark < 0 ? stored : stored.slice(0, mark);
};

export interface DeletedPageRow {
  id: number;
  documentation_id: number;
  version_id: number;
  parent_page_id: number | null;
  slug: string;
  title: string;
  deleted_at: string;
  /** the parent page's deletion, when the parent is deleted too */
  parent_deleted_at: string | null;
}

/**
 * Soft deletion of pages, and the purge of what was deleted long ago. The trees walk pages alone,
 * in recursive SQL that db/visibility.ts has no form for; the cascade is the rule (decision 0023).
 */
export const trashRepository = {
  /** A live page and every live page below it, the page first. */
  async liveTree(db: Executor, pageId: number): Promise<number[]> {
    const { rows } = await sql<{ id: number }>`
      with recursive tree(id) as (
        select id from pages where id = ${pageId} and deleted_at is null
        union all
        select p.id from pages p join tree t on p.parent_page_id = t.id where p.deleted_at is null
      )
      select id from tree`.execute(db);
    return rows.map((row) => Number(row.id));
  },

  /** A deleted page and the pages below it deleted with it (the same deletion time), the page first. */
  async deletedTree(
    db: Executor,
    pageId: number,
    deletedAt: string,
  ): Promise<Array<{ id: number; slug: string }>> {
    const { rows } = await sql<{ id: number; slug: string }>`
      with recursive tree(id) as (
        select id from pages where id = ${pageId} and deleted_at = ${deletedAt}
        union all
        select p.id from pages p join tree t on p.parent_page_id = t.id where p.deleted_at = ${deletedAt}
      )
      select pages.id, pages.slug from tree join pages on pages.id = tree.id`.execute(db);
    return rows.map((row) => ({ id: Number(row.id), slug: row.slug }));
  },

  /** Marks pages deleted, their slugs freed. */
  async markDeleted(db: Executor, ids: readonly number[], at: string): Promise<void> {
    for (let start = 0; start < ids.length; start += CHUNK) {
      const chunk = ids.slice(start, start + CHUNK);
      await db
        .updateTable('pages')
        .set({ deleted_at: at, slug: sql<string>`slug || '~' || cast(id as text)` })
        .where('id', 'in', chunk)
        .execute();
    }
  },

  /** A deleted page of a live section of a live version of the project. */
  deletedPage(db: Executor, projectId: number, id: number): Promise<DeletedPageRow | undefined> {
    return pagesOfLiveSections(db)
      .leftJoin('pages as parent', 'parent.id', 'p.parent_page_id')
      .select([
        'p.id',
        'p.documentation_id',
        'd.version_id',
        'p.parent_page_id',
        'p.slug',
        'p.title',
        sql<string>`p.deleted_at`.as('deleted_at'),
        'parent.deleted_at as parent_deleted_at',
      ])
      .where('p.id', '=', id)
      .where('v.project_id', '=', projectId)
      .where('p.deleted_at', 'is not', null)
      .executeTakeFirst();
  },

  /** Live slugs of a section that start like `slug` (the slug itself and its `-n` family). */
  async liveSlugs(db: Executor, documentationId: number, slug: string): Promise<Set<string>> {
    const rows = await db
      .selectFrom('pages as p')
      .select('p.slug')
      .where('p.documentation_id', '=', documentationId)
      .$call(livePage)
      .where((eb) => eb.or([eb('p.slug', '=', slug), eb('p.slug', 'like', `${slug}-%`)]))
      .execute();
    return new Set(rows.map((row) => row.slug));
  },

  async restore(db: Executor, id: number, slug: string): Promise<void> {
    await db.updateTable('pages').set({ deleted_at: null, slug }).where('id', '=', id).execute();
  },

  /**
   * Removes for good the rows of one table deleted before `before`, a thousand at a time (each its
   * own statements, so a large purge never holds the write lock long). Rows that hang on them go with
   * them (history, feedback, a section's categories and pages, a version's contents) by their foreign
   * keys; the former slugs and search entries that name them, which have none, are removed first.
   */
  async purge(db: Executor, table: PurgedTable, before: string): Promise<number> {
    let purged = 0;
    for (;;) {
      const rows = await db
        .selectFrom(table)
        .select('id')
        .where('deleted_at', 'is not', null)
        .where('deleted_at', '<', before)
        .limit(PURGE_CHUNK)
        .execute();
      const ids = rows.map((row) => Number(row.id));
      if (ids.length === 0) return purged;
      await forgetPurged(db, table, ids);
      const result = await db.deleteFrom(table).where('id', 'in', ids).executeTakeFirst();
      purged += Number(result.numDeletedRows);
      if (ids.length < PURGE_CHUNK) return purged;
    }
  },
};

/**
 * What names rows about to be purged without a foreign key: the former slugs that lead to them (or
 * to what they hold), and search entries (a delete removed them already; any left would be found).
 */
async function forgetPurged(db: Executor, table: PurgedTable, ids: number[]): Promise<void> {
  const slugs = (kind: FormerSlugsTable['kind'], column: 'target_id' | 'parent_id', of: number[]) =>
    of.length === 0
      ? Promise.resolve()
      : db.deleteFrom('former_slugs').where('kind', '=', kind).where(column, 'in', of).execute();
  switch (table) {
    case 'pages':
      await slugs('page', 'target_id', ids);
      await db.deleteFrom('search_entries').where('page_id', 'in', ids).execute();
      return;
    case 'api_references':
      await db.deleteFrom('search_entries').where('reference_id', 'in', ids).execute();
      return;
    case 'documentation':
      await slugs('section', 'target_id', ids);
      await slugs('page', 'parent_id', ids);
      return;
    case 'versions': {
      const sections = await db
        .selectFrom('documentation')
        .select('id')
        .where('version_id', 'in', ids)
        .execute();
      await slugs('version', 'target_id', ids);
      await slugs('section', 'parent_id', ids);
      await slugs(
        'page',
        'parent_id',
        sections.map((row) => Number(row.id)),
      );
      return;
    }
  }
}
