import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ReaderAccessTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';

export type ReaderAccessRow = Selectable<ReaderAccessTable>;

export const readerAccessRepository = {
  /**
   * Newest first by creation. A re-grant keeps its `created`, so it keeps its place: the order always
   * agrees with the `created` dates the client sees. The id breaks ties between grants of one instant.
   */
  list(db: Executor, projectId: number): Promise<ReaderAccessRow[]> {
    return db
      .selectFrom('reader_access')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('created', 'desc')
      .orderBy('id', 'desc')
      .execute();
  },

  findByEmail(db: Executor, projectId: number, email: string): Promise<ReaderAccessRow | undefined> {
    return db
      .selectFrom('reader_access')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('email', '=', email)
      .executeTakeFirst();
  },

  insert(db: Executor, values: Insertable<ReaderAccessTable>): Promise<ReaderAccessRow> {
    return mapUnique(() =>
      db.insertInto('reader_access').values(values).returningAll().executeTakeFirstOrThrow(),
    );
  },

  update(db: Executor, id: number, values: Updateable<ReaderAccessTable>): Promise<ReaderAccessRow> {
    return db
      .updateTable('reader_access')
      .set(values)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** Sets `revoked_at` only where it is unset, so two racing revokes write (and audit) it once. */
  revoke(db: Executor, id: number, at: string): Promise<ReaderAccessRow | undefined> {
    return db
      .updateTable('reader_access')
      .set({ revoked_at: at, updated: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },
};
