import { performance } from 'node:perf_hooks';
import { sql, type Kysely, type Transaction } from 'kysely';
import { ServiceUnavailableError } from '../errors.ts';
import type { Database } from './schema.ts';
import { inTransaction, ownTransaction } from './transaction.ts';
import { asUnavailable, isStatementTimeout, RETRY_AFTER_SECONDS } from './unavailable.ts';

/** Writes of one group at most; those past it wait for the next group. */
const MAX_GROUP = 32;
/**
 * A group whose oldest write waited less than this share of the bound runs under the statement
 * timeout as it is: the wait then exceeds the bound by no more than the share, and a group that
 * hardly waited (as on an idle section) spends no round trip on setting it.
 */
const UNBOUNDED_SHARE = 0.05;

type Context = {
  actor: unknown;
  transaction?: Transaction<Database>;
  join?: () => Promise<Transaction<Database>>;
};
type Work<C extends Context, T> = (
  ctx: C & { transaction: Transaction<Database> },
  first: boolean,
) => Promise<T>;

interface Waiting {
  ctx: Context;
  work: Work<Context, unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** when it started waiting (performance.now()) */
  since: number;
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
 * the transaction then holds for the others. A write inside a caller's transaction (an import) joins
 * it, as inTransaction does. When a group fails:
 * - in one write's work: the group rolls back, the others go together again, then that write runs
 *   alone, so that its failure (a taken slug, a section gone) is its own and is what it would be
 *   after the others;
 * - because the database cannot answer (unavailable.ts), or at its commit: every write of the group
 *   fails with that error and none runs again. A commit's outcome is then unknown (the connection
 *   may have gone after the database committed), and running writes one by one against a database
 *   that does not answer would hold the section's later writes for as many timeouts;
 * - past the bound set for its oldest write (below): that write fails, and the others go together
 *   again under what is left of theirs.
 * A write that waited longer than `maxWaitMs` for its group is refused with a 503: given the database's
 * statement timeout on PostgreSQL, which bounded a wait for the lock before; none on SQLite, where a
 * write waited for the one writer without a bound. The bound is the whole wait's, not each phase's:
 * a group whose oldest write waited runs under a statement timeout of what is left of it (SET LOCAL,
 * so for that transaction only), so that its wait for the section's lock does not get a full timeout
 * of its own after the wait for the group.
 */
export class TransactionGroups<K> {
  /** per key, the writes waiting for the transaction under way; a key is here while one runs */
  private readonly waiting = new Map<K, Waiting[]>();

  constructor(
    private readonly db: Kysely<Database>,
    /**
     * PostgreSQL's statement timeout: a write that waited longer for its group is refused with a
     * 503; null: no bound (SQLite)
     */
    private readonly maxWaitMs: number | null = null,
    /** PostgreSQL: the rest of a write's wait is bounded by what is left of `maxWaitMs` */
    private readonly boundsStatements = false,
  ) {}

  run<C extends Context, T>(key: K, ctx: C, work: Work<C, T>): Promise<T> {
    if (ctx.transaction !== undefined || ctx.join !== undefined) {
      return inTransaction(this.db, ctx, (tx) => work(tx, true));
    }
    return new Promise<T>((resolve, reject) => {
      const item: Waiting = {
        ctx,
        work: work as unknown as Work<Context, unknown>,
        resolve: resolve as (value: unknown) => void,
        reject,
        since: performance.now(),
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
      if (group.length > 0) await this.runGroup(group);
      const queue = this.waiting.get(key) ?? [];
      if (queue.length === 0) {
        this.waiting.delete(key);
        return;
      }
      group = queue.splice(0, MAX_GROUP);
    }
  }

  /** Settles every write of the group; never throws. */
  private async runGroup(waited: Waiting[]): Promise<void> {
    // Writes that waited past their bound are refused, whether the group waited for the one before
    // or is run again after one of its writes failed.
    const group = this.withinBound(waited);
    const [only] = group;
    if (group.length <= 1) return only === undefined ? undefined : this.runAlone(only);
    // The write whose work threw; none when the transaction's begin or commit did.
    let failed: Waiting | undefined;
    let bounded = false;
    let results: unknown[] = [];
    try {
      results = await ownTransaction(this.db, async (transaction) => {
        bounded = await this.boundRest(transaction, group);
        const done: unknown[] = [];
        for (const [i, item] of group.entries()) {
          try {
            done.push(await item.work({ ...item.ctx, transaction }, i === 0));
          } catch (error) {
            failed = item;
            throw error;
          }
        }
        return done;
      });
    } catch (error) {
      // The bound set was what the oldest write had left: that write is refused, and the younger
      // ones, whose own bound is not reached yet, go together again with what is left of theirs.
      if (bounded && isStatementTimeout(error)) {
        const oldest = Math.min(...group.map((item) => item.since));
        for (const item of group) if (item.since === oldest) item.reject(error);
        await this.runGroup(group.filter((item) => item.since !== oldest));
        return;
      }
      if (failed === undefined || asUnavailable(error) !== null) {
        for (const item of group) item.reject(error);
        return;
      }
      await this.runGroup(group.filter((item) => item !== failed));
      await this.runAlone(failed);
      return;
    }
    for (const [i, item] of group.entries()) item.resolve(results[i]);
  }

  private async runAlone(item: Waiting): Promise<void> {
    if (this.withinBound([item]).length === 0) return;
    try {
      const result = await inTransaction(this.db, item.ctx, async (tx) => {
        await this.boundRest(tx.transaction, [item]);
        return item.work(tx, true);
      });
      item.resolve(result);
    } catch (error) {
      item.reject(error);
    }
  }

  /** The writes still within their bound; the others are refused. */
  private withinBound(group: Waiting[]): Waiting[] {
    if (this.maxWaitMs === null) return group;
    const now = performance.now();
    const kept: Waiting[] = [];
    for (const item of group) {
      if (now - item.since <= this.maxWaitMs) kept.push(item);
      else item.reject(tooLong());
    }
    return kept;
  }

  /**
   * Bounds the statements of the group's transaction by what is left of its oldest write's bound
   * (at least 1 ms: 0 would mean none); whether it did. The database cancels a statement past it
   * (57014), which unavailable.ts answers with a 503, as it does past the statement timeout.
   */
  private async boundRest(transaction: Transaction<Database>, group: Waiting[]): Promise<boolean> {
    if (this.maxWaitMs === null || !this.boundsStatements) return false;
    const waited = performance.now() - Math.min(...group.map((item) => item.since));
    if (waited < this.maxWaitMs * UNBOUNDED_SHARE) return false;
    const left = Math.max(1, Math.floor(this.maxWaitMs - waited));
    await sql`select set_config('statement_timeout', ${String(left)}, true)`.execute(transaction);
    return true;
  }
}

function tooLong(): ServiceUnavailableError {
  return new ServiceUnavailableError(
    'Too many writes to this section are waiting. Try again later.',
    RETRY_AFTER_SECONDS,
  );
}
