import type { Executor } from '../../db/executor.ts';
import type { VersionsTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';
import type { Insertable, Selectable, Updateable } from 'kysely';

export type VersionRow = Selectable<VersionsTable>;

const live = (db: Executor, projectId: number) =>
  db.selectFrom('versions').selectAll().where('project_id', '=', projectId).where('deleted_at', 'is', null);

export const versionsRepository = {
  findById(db: Executor, projectId: number, id: number): Promise<VersionRow | undefined> {
    return live(db, projectId).where('id', '=', id).executeTakeFirst();
  },

  findBySlug(db: Executor, projectId: number, slug: string): Promise<VersionRow | undefined> {
    return live(db, projectId).where('slug', '=', slug).executeTakeFirst();
  },

  /** The default version: the first published one in `ordr` order. */
  findDefault(db: Executor, projectId: number): Promise<VersionRow | undefined> {
    return live(db, projectId)
      .where('published', '=', 1)
      .orderBy('ordr')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  },

  list(db: Executor, projectId: number): Promise<VersionRow[]> {
    return live(db, projectId).orderBy('ordr').orderBy('id').execute();
  },

  async slugsStartingWith(db: Executor, projectId: number, base: string): Promise<Set<string>> {
    const rows = await db
      .selectFrom('versions')
      .select('slug')
      .where('project_id', '=', projectId)
      .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
      .execute();
    return new Set(rows.map((r) => r.slug));
  },

  async nextOrdr(db: Executor, projectId: number): Promise<number> {
    const row = await db
      .selectFrom('versions')
      .select((eb) => eb.fn.max('ordr').as('max'))
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return Number(row?.max ?? 0) + 1;
  },

  insert(db: Executor, values: Insertable<VersionsTable>): Promise<VersionRow> {
    return mapUnique(() => db.insertInto('versions').values(values).returningAll().executeTakeFirstOrThrow());
  },

  update(db: Executor, id: number, values: Updateable<VersionsTable>): Promise<VersionRow> {
    return mapUnique(() =>
      db.updateTable('versions').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow(),
    );
  },
};
