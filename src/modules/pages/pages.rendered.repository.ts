import type { Kysely } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { Database, RenderedContentsTable } from '../../db/schema.ts';

/** A stored output as the render cache reads it back. */
export type StoredRow = Pick<RenderedContentsTable, 'body' | 'json' | 'created'>;

/** The statements of the render cache's second tier (rendered-store.ts, decision 0018). */
export const renderedRepository = {
  /** The output stored under `key`: the definition RenderedStore prepares once. */
  byKey: (db: Kysely<Database>, key: string) =>
    db.selectFrom('rendered_contents').select(['body', 'json', 'created']).where('key', '=', key),

  /** Removes up to `limit` outputs stored before `before`; the number removed. */
  async purge(db: Executor, before: string, limit: number): Promise<number> {
    const result = await db
      .deleteFrom('rendered_contents')
      .where('key', 'in', (eb) =>
        eb.selectFrom('rendered_contents').select('key').where('created', '<', before).limit(limit),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Stores outputs; a key stored already takes the new row. */
  async store(db: Executor, rows: readonly RenderedContentsTable[]): Promise<void> {
    await db
      .insertInto('rendered_contents')
      .values(rows)
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          body: (eb) => eb.ref('excluded.body'),
          json: (eb) => eb.ref('excluded.json'),
          created: (eb) => eb.ref('excluded.created'),
          bytes: (eb) => eb.ref('excluded.bytes'),
        }),
      )
      .execute();
  },

  /** What the stored outputs weigh together, in bytes. */
  async totalBytes(db: Executor): Promise<number> {
    const row = await db
      .selectFrom('rendered_contents')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>('bytes'), eb.lit(0)).as('total'))
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  },

  /** The `limit` outputs stored or found longest ago, oldest first, with what each weighs. */
  oldest(db: Executor, limit: number): Promise<Array<{ key: string; bytes: number }>> {
    return db
      .selectFrom('rendered_contents')
      .select(['key', 'bytes'])
      .orderBy('created')
      .orderBy('key')
      .limit(limit)
      .execute();
  },

  /** Removes outputs by key; the number removed. */
  async remove(db: Executor, keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const result = await db.deleteFrom('rendered_contents').where('key', 'in', keys).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
