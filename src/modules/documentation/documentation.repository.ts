import type { Insertable, Selectable, Updateable } from 'kysely';
import type { DialectName } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import type { CategoriesTable, DocumentationTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';
import { livePage, liveSections, liveSectionsOfVersion } from '../../db/visibility.ts';

export type DocumentationRow = Selectable<DocumentationTable>;
export type CategoryRow = Selectable<CategoriesTable>;

/** Sections of one project: the join to versions is what keeps other projects' ids out. */
const inProject = (db: Executor, projectId: number) =>
  liveSections(db).selectAll('d').where('v.project_id', '=', projectId);

export const documentationRepository = {
  findById(db: Executor, projectId: number, id: number): Promise<DocumentationRow | undefined> {
    return inProject(db, projectId).where('d.id', '=', id).executeTakeFirst();
  },

  findBySlug(db: Executor, versionId: number, slug: string): Promise<DocumentationRow | undefined> {
    return liveSectionsOfVersion(db, versionId).selectAll('d').where('d.slug', '=', slug).executeTakeFirst();
  },

  listByVersion(db: Executor, versionId: number): Promise<DocumentationRow[]> {
    return liveSectionsOfVersion(db, versionId).selectAll('d').orderBy('d.ordr').orderBy('d.id').execute();
  },

  insert(db: Executor, values: Insertable<DocumentationTable>): Promise<DocumentationRow> {
    return mapUnique(() =>
      db.insertInto('documentation').values(values).returningAll().executeTakeFirstOrThrow(),
    );
  },

  /**
   * Serialises writers of one section's index and page slugs on PostgreSQL (a row lock held to
   * commit). SQLite needs none: its single connection runs one transaction at a time.
   */
  async lockIndex(db: Executor, dialect: DialectName, documentationId: number): Promise<void> {
    if (dialect !== 'postgres') return;
    await db.selectFrom('documentation').select('id').where('id', '=', documentationId).forUpdate().execute();
  },

  /** The next free position at the end of a section's index (categories and pages share it). */
  async nextPosition(db: Executor, documentationId: number): Promise<number> {
    const [pages, categories] = await Promise.all([
      db
        .selectFrom('pages')
        .select((eb) => eb.fn.max('position').as('max'))
        .where('documentation_id', '=', documentationId)
        .executeTakeFirst(),
      db
        .selectFrom('categories')
        .select((eb) => eb.fn.max('position').as('max'))
        .where('documentation_id', '=', documentationId)
        .executeTakeFirst(),
    ]);
    return Math.max(Number(pages?.max ?? 0), Number(categories?.max ?? 0)) + 1;
  },

  update(db: Executor, id: number, values: Updateable<DocumentationTable>): Promise<DocumentationRow> {
    return mapUnique(() =>
      db
        .updateTable('documentation')
        .set(values)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
  },

  /** Gives the live sections of a version the order of `ids`: `ordr` 0, 1, 2… */
  async renumber(db: Executor, ids: readonly number[]): Promise<void> {
    for (const [ordr, id] of ids.entries()) {
      await db.updateTable('documentation').set({ ordr }).where('id', '=', id).execute();
    }
  },

  async countLivePages(db: Executor, documentationId: number): Promise<number> {
    const row = await db
      .selectFrom('pages as p')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('p.documentation_id', '=', documentationId)
      .$call(livePage)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  /**
   * Deletes a section's live pages with it (soft, like the section). A cascade, written out: an
   * update, where db/visibility.ts filters reads.
   */
  async deletePages(db: Executor, documentationId: number, at: string): Promise<void> {
    await db
      .updateTable('pages')
      .set({ deleted_at: at, updated: at })
      .where('documentation_id', '=', documentationId)
      .where('deleted_at', 'is', null)
      .execute();
  },

  insertCategory(db: Executor, values: Insertable<CategoriesTable>): Promise<CategoryRow> {
    return db.insertInto('categories').values(values).returningAll().executeTakeFirstOrThrow();
  },
};
