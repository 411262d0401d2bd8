import type { DialectName } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import type { VersionsTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';
import { liveVersions, visibleVersion } from '../../db/visibility.ts';
import type { Insertable, Selectable, Updateable } from 'kysely';

export type VersionRow = Selectable<VersionsTable>;

const live = (db: Executor, projectId: number) =>
  liveVersions(db).selectAll().where('v.project_id', '=', projectId);

export const versionsRepository = {
  findById(db: Executor, projectId: number, id: number): Promise<VersionRow | undefined> {
    return live(db, projectId).where('v.id', '=', id).executeTakeFirst();
  },

  findBySlug(db: Executor, projectId: number, slug: string): Promise<VersionRow | undefined> {
    return live(db, projectId).where('v.slug', '=', slug).executeTakeFirst();
  },

  /** The default version: the first published one in `ordr` order. */
  findDefault(db: Executor, projectId: number): Promise<VersionRow | undefined> {
    return live(db, projectId)
      .$call(visibleVersion)
      .orderBy('v.ordr')
      .orderBy('v.id')
      .limit(1)
      .executeTakeFirst();
  },

  /**
   * Serialises the writers of one project's versions on PostgreSQL (a row lock on the project, held
   * to commit), so that two deletes cannot each see the other's version as the published one left.
   * `FOR NO KEY UPDATE`: the rows other writes add (an audit entry) still take their key-share lock
   * on the project, so a long clone does not hold up the project's other writes.
   */
  async lockProject(db: Executor, dialect: DialectName, projectId: number): Promise<void> {
    if (dialect !== 'postgres') return;
    await db.selectFrom('projects').select('id').where('id', '=', projectId).forNoKeyUpdate().execute();
  },

  async lockVersion(db: Executor, dialect: DialectName, versionId: number): Promise<void> {
    if (dialect !== 'postgres') return;
    await db.selectFrom('versions').select('id').where('id', '=', versionId).forUpdate().execute();
  },

  async countPublished(db: Executor, projectId: number): Promise<number> {
    const row = await liveVersions(db)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('v.project_id', '=', projectId)
      .$call(visibleVersion)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  list(db: Executor, projectId: number): Promise<VersionRow[]> {
    return live(db, projectId).orderBy('v.ordr').orderBy('v.id').execute();
  },

  insert(db: Executor, values: Insertable<VersionsTable>): Promise<VersionRow> {
    return mapUnique(() => db.insertInto('versions').values(values).returningAll().executeTakeFirstOrThrow());
  },

  /**
   * Versions an import is writing in steps (decision 0020): hidden as deleted between its steps and
   * marked with the importing process; shown inside each step's transaction, so that the services
   * write into them as into any version, and made live for good by the import's last step.
   */
  async hideStaged(db: Executor, ids: readonly number[], holder: string, at: string): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable('versions')
      .set({ deleted_at: at, import_stage: holder })
      .where('id', 'in', ids)
      .execute();
  },

  async showStaged(db: Executor, ids: readonly number[], holder: string, live: boolean): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable('versions')
      .set(live ? { deleted_at: null, import_stage: null } : { deleted_at: null })
      .where('id', 'in', ids)
      .where('import_stage', '=', holder)
      .execute();
  },

  /** Every staged version of every project, with the process that writes it. */
  staged(db: Executor): Promise<Array<{ id: number; import_stage: string }>> {
    return db
      .selectFrom('versions')
      .select(['id', 'import_stage'])
      .where('import_stage', 'is not', null)
      .$narrowType<{ import_stage: string }>()
      .execute();
  },

  /** Removes a version staged by `holder` for good, with what hangs on it by its foreign keys. */
  async removeStaged(db: Executor, id: number, holder: string): Promise<void> {
    await db.deleteFrom('versions').where('id', '=', id).where('import_stage', '=', holder).execute();
  },

  update(db: Executor, id: number, values: Updateable<VersionsTable>): Promise<VersionRow> {
    return mapUnique(() =>
      db.updateTable('versions').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow(),
    );
  },
};
