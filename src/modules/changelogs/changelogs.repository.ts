import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ChangelogsTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';

export type ChangelogRow = Selectable<ChangelogsTable>;

export const changelogsRepository = {
  insert(db: Executor, values: Insertable<ChangelogsTable>): Promise<ChangelogRow> {
    return mapUnique(() =>
      db.insertInto('changelogs').values(values).returningAll().executeTakeFirstOrThrow(),
    );
  },
};
