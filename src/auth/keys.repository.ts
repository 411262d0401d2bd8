import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../db/executor.ts';
import type { ApiKeysTable } from '../db/schema.ts';

export type KeyRow = Selectable<ApiKeysTable>;

export const keysRepository = {
  /** A key with what a request needs to act with it: its project's settings and its user. */
  findForAuth(db: Executor, hash: string) {
    return db
      .selectFrom('api_keys as k')
      .innerJoin('projects as p', 'p.id', 'k.project_id')
      .leftJoin('users as u', 'u.id', 'k.user_id')
      .select([
        'k.id as keyId',
        'k.name as keyName',
        'k.permissions',
        'k.version_scope',
        'k.revoked_at',
        'p.id as projectId',
        'p.name as projectName',
        'p.plan',
        'p.access',
        'p.base_path',
        'p.host',
        'u.id as userId',
        'u.email as userEmail',
        'u.last_active_at',
      ])
      .where('k.key_hash', '=', hash)
      .executeTakeFirst();
  },

  /** The project's keys, revoked ones included, oldest first. */
  listByProject(db: Executor, projectId: number): Promise<KeyRow[]> {
    return db.selectFrom('api_keys').selectAll().where('project_id', '=', projectId).orderBy('id').execute();
  },

  findById(db: Executor, id: number): Promise<KeyRow | undefined> {
    return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The ids among `ids` that are versions of the project (deleted ones included). */
  async versionIdsOf(db: Executor, projectId: number, ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('versions')
      .select('id')
      .where('project_id', '=', projectId)
      .where('id', 'in', [...ids])
      .execute();
    return rows.map((r) => r.id);
  },

  async isUserOf(db: Executor, projectId: number, userId: number): Promise<boolean> {
    const row = await db
      .selectFrom('users')
      .select('id')
      .where('id', '=', userId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return row !== undefined;
  },

  insert(db: Executor, values: Insertable<ApiKeysTable>): Promise<KeyRow> {
    return db.insertInto('api_keys').values(values).returningAll().executeTakeFirstOrThrow();
  },

  revoke(db: Executor, id: number, at: string): Promise<KeyRow> {
    return db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async touchUser(db: Executor, userId: number, at: string): Promise<void> {
    await db.updateTable('users').set({ last_active_at: at }).where('id', '=', userId).execute();
  },
};
