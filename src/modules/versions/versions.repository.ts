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

  insert(db: Executor, values: Insertable<VersionsTable>): Promise<VersionRow> {
    return mapUnique(() => db.insertInto('versions').values(values).returningAll().executeTakeFirstOrThrow());
  },

  update(db: Executor, id: number, values: Updateable<VersionsTable>): Promise<VersionRow> {
    return mapUnique(() =>
      db.updateTable('versions').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow(),
    );
  },
};
