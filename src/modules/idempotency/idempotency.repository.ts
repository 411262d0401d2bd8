import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { IdempotencyKeysTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/** An answer as it is kept. */
export interface KeptAnswer {
  status: number;
  content_type: string | null;
  etag: string | null;
  body: string;
  completed: string;
}

export const idempotencyRepository = {
  /** In the key's transaction: where the request's own writes begin. */
  savepoint: (trx: Executor, name: string) => sql`savepoint ${sql.id(name)}`.execute(trx),

  /** Undoes the request's own writes, keeping the key's transaction and its lock. */
  rollbackTo: (trx: Executor, name: string) => sql`rollback to savepoint ${sql.id(name)}`.execute(trx),

  /**
   * PostgreSQL: whether this transaction now holds the key's advisory lock, kept until it ends. The
   * request that runs holds it; one that cannot take it knows another runs; a process that dies loses
   * its session, and the lock with it.
   */
  async tryLock(db: Executor, apiKeyId: number, key: string): Promise<boolean> {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(
      hashtextextended(${`idempotency ${apiKeyId} ${key}`}, 0)) as locked`.execute(db);
    return rows[0]?.locked === true;
  },

  find(db: Executor, apiKeyId: number, key: string): Promise<IdempotencyRow | undefined> {
    return db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('api_key_id', '=', apiKeyId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
  },

  /** A running claim (SQLite); a UniqueViolationError when some request holds the key already. */
  async claim(db: Executor, row: Insertable<IdempotencyKeysTable>): Promise<number> {
    const inserted = await mapUnique(() =>
      db.insertInto('idempotency_keys').values(row).returning('id').executeTakeFirstOrThrow(),
    );
    return inserted.id;
  },

  /** A key with its answer, unless a row holds the key already: whether it was written. */
  async keep(
    db: Executor,
    row: Omit<Insertable<IdempotencyKeysTable>, keyof KeptAnswer> & KeptAnswer,
  ): Promise<boolean> {
    const written = await db
      .insertInto('idempotency_keys')
      .values(row)
      .onConflict((conflict) => conflict.columns(['api_key_id', 'idempotency_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return written !== undefined;
  },

  /** Completes a running claim: whether it was still running (nobody took it over). */
  async complete(db: Executor, id: number, answer: KeptAnswer): Promise<boolean> {
    const result = await db
      .updateTable('idempotency_keys')
      .set({ ...answer, holder: null })
      .where('id', '=', id)
      .where('completed', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async release(db: Executor, id: number): Promise<void> {
    await db.deleteFrom('idempotency_keys').where('id', '=', id).execute();
  },

  /**
   * Removes a row only if it is still as seen: not taken by another request meanwhile, and not
   * answered since if it was seen unanswered.
   */
  async releaseIfSeen(
    db: Executor,
    seen: Pick<IdempotencyRow, 'id' | 'created' | 'completed' | 'holder'>,
  ): Promise<void> {
    await db
      .deleteFrom('idempotency_keys')
      .where('id', '=', seen.id)
      .where('created', '=', seen.created)
      .where('completed', seen.completed === null ? 'is' : '=', seen.completed)
      .where('holder', seen.holder === null ? 'is' : '=', seen.holder)
      .execute();
  },

  async purge(db: Executor, before: string): Promise<number> {
    const result = await db.deleteFrom('idempotency_keys').where('created', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
