import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { IdempotencyKeysTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

export const idempotencyRepository = {
  /** Claims a key; a UniqueViolationError when some request holds it already. */
  async claim(db: Executor, apiKeyId: number, key: string, fingerprint: string, at: string): Promise<number> {
    const row = await mapUnique(() =>
      db
        .insertInto('idempotency_keys')
        .values({ api_key_id: apiKeyId, idempotency_key: key, fingerprint, created: at })
        .returning('id')
        .executeTakeFirstOrThrow(),
    );
    return row.id;
  },

  find(db: Executor, apiKeyId: number, key: string): Promise<IdempotencyRow | undefined> {
    return db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('api_key_id', '=', apiKeyId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
  },

  async complete(
    db: Executor,
    id: number,
    answer: {
      status: number;
      content_type: string | null;
      etag: string | null;
      body: string;
      completed: string;
    },
  ): Promise<void> {
    await db.updateTable('idempotency_keys').set(answer).where('id', '=', id).execute();
  },

  async release(db: Executor, id: number): Promise<void> {
    await db.deleteFrom('idempotency_keys').where('id', '=', id).execute();
  },

  /** Removes a claim only if it is still the one seen (another request may have taken it meanwhile). */
  async releaseIfCreated(db: Executor, id: number, created: string): Promise<void> {
    await db.deleteFrom('idempotency_keys').where('id', '=', id).where('created', '=', created).execute();
  },

  async purge(db: Executor, before: string): Promise<number> {
    const result = await db.deleteFrom('idempotency_keys').where('created', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
