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

  update(db: Executor, id: number, values: Updateable<VersionsTable>): Promise<VersionRow> {
    return mapUnique(() =>
      db.updateTable('versions').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow(),
    );
  },
};
