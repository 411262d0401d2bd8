import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { UsersTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';

export type UserRow = Selectable<UsersTable>;

export const usersRepository = {
  list(db: Executor, projectId: number): Promise<UserRow[]> {
    return db.selectFrom('users').selectAll().where('project_id', '=', projectId).orderBy('id').execute();
  },

  insert(db: Executor, values: Insertable<UsersTable>): Promise<UserRow> {
    return mapUnique(() => db.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow());
  },
};
