import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';
import { inTransaction } from './transaction.ts';

/** Writes of one group at most; those past it wait for the next group. */
const MAX_GROUP = 32;

type Context = { actor: unknown; transaction?: Transaction<Database> };
type Work<C extends Context, T> = (
  ctx: C & { transaction: Transaction<Database> },
  first: boolean,
) => Promise<T>;

interface Waiting {
  ctx: Context;
  work: Work<Context, unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes that would each take the same lock and queue on it (the creates of one section) run one
 * transaction at a time per key on this instance; those that arrive while it runs go together in the
 * next, in the order they came, under one lock and one commit. On PostgreSQL a create held the
 * section's lock for four round trips and its commit, and twenty clients creating in one section
 * queued on it; in a group each write costs its own statements only. Other instances' writes still
 * queue on the database's lock, as before.
 *
 * `work` is told whether it is the first of its transaction: only the first takes the lock, which
 * the transaction then holds for the others. If any write of a group fails, the group's transaction
 * rolls back and each of its writes runs again alone, so that a write's failure (a taken slug, a
 * section gone) is its own and nothing the others wrote is lost or half done. A write inside a
 * caller's transaction (an import) joins it, as inTransaction does.
 */
export class TransactionGroups<K> {
  /** per key, the writes waiting for the transaction under way; a key is here while one runs */
  private readonly waiting = new Map<K, Waiting[]>();

  constructor(private readonly db: Kysely<Database>) {}

  run<C extends Context, T>(key: K, ctx: C, work: Work<C, T>): Promise<T> {
    if (ctx.transaction !== undefined) return inTransaction(this.db, ctx, (tx) => work(tx, true));
    return new Promise<T>((resolve, reject) => {
      const item: Waiting = {
        ctx,
        work: work as unknown as Work<Context, unknown>,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      const queue = this.waiting.get(key);
      if (queue !== undefined) {
        queue.push(item);
        return;
      }
      this.waiting.set(key, []);
      void this.drain(key, [item]);
    });
  }

  /** Runs `group`, then the writes that arrived meanwhile, until none is waiting. */
  private async drain(key: K, group: Waiting[]): Promise<void> {
    for (;;) {
      await this.runGroup(group);
      const queue = this.waiting.get(key) ?? [];
      if (queue.length === 0) {
        this.waiting.delete(key);
        return;
      }
      group = queue.splice(0, MAX_GROUP);
    }
  }

  /** Settles every write of the group; never throws. */
  private async runGroup(group: Waiting[]): Promise<void> {
    if (group.length > 1) {
      let results: unknown[] | undefined;
      let worked = false;
      try {
        results = await this.db.transaction().execute(async (transaction) => {
          const done: unknown[] = [];
          for (const [i, item] of group.entries())
            done.push(await item.work({ ...item.ctx, transaction }, i === 0));
          worked = true;
          return done;
        });
      } catch (error) {
        // A failed commit is every write's, as it would have been alone: its outcome is unknown (the
        // connection may have gone after the database committed), so nothing is written again.
        if (worked) {
          for (const item of group) item.reject(error);
          return;
        }
        // One write's failure is its own: each runs again alone, below.
      }
      if (results !== undefined) {
        for (const [i, item] of group.entries()) item.resolve(results[i]);
        return;
      }
    }
    for (const item of group) {
      try {
        item.resolve(await inTransaction(this.db, item.ctx, (tx) => item.work(tx, true)));
      } catch (error) {
        item.reject(error);
      }
    }
  }
}
