import type { Insertable, Selectable, Updateable } from 'kysely';
import type { DialectName } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import type { PagesTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';
import { livePage } from '../../db/visibility.ts';

export type PageRow = Selectable<PagesTable>;

/** The statements of page writes and placement; the reads of pages are PageQueries, history's pages.history.repository.ts. */
export const pagesRepository = {
  categories(db: Executor, documentationId: number) {
    return db
      .selectFrom('categories')
      .select(['id', 'title', 'position'])
      .where('documentation_id', '=', documentationId)
      .orderBy('position')
      .orderBy('id')
      .execute();
  },

  /** Where a page stands, deleted or not, with its version (for the key's scope). */
  placementOf(db: Executor, id: number) {
    return db
      .selectFrom('pages as p')
      .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
      .select([
        'p.id',
        'p.documentation_id',
        'd.version_id',
        'p.category_id',
        'p.parent_page_id',
        'p.position',
        'p.deleted_at',
      ])
      .where('p.id', '=', id)
      .executeTakeFirst();
  },

  /**
   * PostgreSQL: locks the section's row to commit, as DocumentationService.lockIndex does, when the
   * section is of the project (another project's row is left alone; the read that follows finds
   * nothing). SQLite needs no lock: its one writer connection runs one transaction at a time.
   */
  async lockSection(db: Executor, dialect: DialectName, projectId: number, documentationId: number) {
    if (dialect !== 'postgres') return;
    await db
      .selectFrom('documentation')
      .select('id')
      .where('id', '=', documentationId)
      .where('version_id', 'in', (eb) =>
        eb.selectFrom('versions').select('id').where('project_id', '=', projectId),
      )
      .forUpdate()
      .execute();
  },

  /**
   * As lockSection, for the section of a page, so that one statement takes the lock a page's writer
   * would otherwise need a read of the page for (a page never changes sections).
   */
  async lockSectionOfPage(db: Executor, dialect: DialectName, projectId: number, pageId: number) {
    if (dialect !== 'postgres') return;
    await db
      .selectFrom('documentation')
      .select('id')
      .where('id', '=', (eb) => eb.selectFrom('pages').select('documentation_id').where('id', '=', pageId))
      .where('version_id', 'in', (eb) =>
        eb.selectFrom('versions').select('id').where('project_id', '=', projectId),
      )
      .forUpdate()
      .execute();
  },

  async place(
    db: Executor,
    id: number,
    values: Pick<Updateable<PagesTable>, 'category_id' | 'parent_page_id' | 'position'>,
  ): Promise<void> {
    await db.updateTable('pages').set(values).where('id', '=', id).execute();
  },

  /**
   * The live children of some pages of a section. The section narrows the read to its rows in an
   * index (nothing indexes parent_page_id: without it, every page of the database is read).
   */
  async childrenOf(db: Executor, documentationId: number, ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('pages as p')
      .select('p.id')
      .where('p.documentation_id', '=', documentationId)
      .where('p.parent_page_id', 'in', ids)
      .$call(livePage)
      .execute();
    return rows.map((r) => r.id);
  },

  async setCategory(db: Executor, ids: readonly number[], categoryId: number | null): Promise<void> {
    if (ids.length === 0) return;
    await db.updateTable('pages').set({ category_id: categoryId }).where('id', 'in', ids).execute();
  },

  /** The last position of a category's pages; the section narrows the read as in childrenOf. */
  async lastPositionInCategory(
    db: Executor,
    documentationId: number,
    categoryId: number,
  ): Promise<number | null> {
    const row = await db
      .selectFrom('pages')
      .select((eb) => eb.fn.max('position').as('max'))
      .where('documentation_id', '=', documentationId)
      .where('category_id', '=', categoryId)
      .executeTakeFirst();
    return row?.max === null || row?.max === undefined ? null : Number(row.max);
  },

  /** Makes room at `position` in a section's index: every entry from there on moves down by one. */
  async shiftFrom(db: Executor, documentationId: number, position: number): Promise<void> {
    await db
      .updateTable('pages')
      .set((eb) => ({ position: eb('position', '+', 1) }))
      .where('documentation_id', '=', documentationId)
      .where('position', '>=', position)
      .execute();
    await db
      .updateTable('categories')
      .set((eb) => ({ position: eb('position', '+', 1) }))
      .where('documentation_id', '=', documentationId)
      .where('position', '>=', position)
      .execute();
  },

  insert(db: Executor, values: Insertable<PagesTable>): Promise<PageRow> {
    return mapUnique(() => db.insertInto('pages').values(values).returningAll().executeTakeFirstOrThrow());
  },

  /** The update of a page's row, unsent: a change that needs nothing back queues it (ChangeWrites). */
  updating(db: Executor, id: number, values: Updateable<PagesTable>) {
    return db.updateTable('pages').set(values).where('id', '=', id);
  },

  update(db: Executor, id: number, values: Updateable<PagesTable>): Promise<PageRow> {
    return mapUnique(() =>
      db.updateTable('pages').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow(),
    );
  },
};

/** The page's own fields of a view, as a write returned them (the joined ones are the caller's). */
export function viewOf(row: PageRow) {
  return {
    id: row.id,
    documentation_id: row.documentation_id,
    title: row.title,
    slug: row.slug,
    listed: row.listed,
    content_draft: row.content_draft,
    content_published: row.content_published,
    created: row.created,
    updated: row.updated,
  };
}
