import { sql, type Kysely, type Transaction } from 'kysely';
import { UniqueViolationError } from '../errors.ts';
import { afterCommitMark, committed, dropAfterCommit } from './after-commit.ts';
import type { Database } from './schema.ts';

/** A race for a generated unique value (a slug) is run again this many times before it is reported. */
const UNIQUE_ATTEMPTS = 8;
let savepoints = 0;

/**
 * Runs `work` in the transaction the caller is already in (or is to join: `ctx.join`), or in a new one. Joined work runs inside a
 * savepoint, so that a use case that fails (or is retried) inside a larger unit undoes only its own
 * writes and the caller decides about the rest; on PostgreSQL it also keeps the outer transaction
 * usable after an error. A lost race for a generated unique value runs the work again, which then
 * reads the slugs anew: at the top, as a new transaction; inside one, from its savepoint.
 */
export async function inTransaction<
  C extends {
    actor: unknown;
    transaction?: Transaction<Database>;
    join?: () => Promise<Transaction<Database>>;
  },
  T,
>(
  db: Kysely<Database>,
  ctx: C,
  work: (ctx: C & { transaction: Transaction<Database> }) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const outer = ctx.transaction ?? (await ctx.join?.());
      if (outer === undefined)
        return await ownTransaction(db, (transaction) => work({ ...ctx, transaction }));
      return await withSavepoint(outer, () => work({ ...ctx, transaction: outer }));
    } catch (error) {
      if (!(error instanceof UniqueViolationError) || attempt >= UNIQUE_ATTEMPTS) throw error;
    }
  }
}

/**
 * A transaction of its own: once it has committed, the work its changes left for after the commit
 * runs (after-commit.ts); a rollback drops that work.
 */
export async function ownTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  let trx: Transaction<Database> | undefined;
  let result: T;
  try {
    result = await db.transaction().execute((transaction) => {
      trx = transaction;
      return work(transaction);
    });
  } catch (error) {
    if (trx !== undefined) dropAfterCommit(trx);
    throw error;
  }
  if (trx !== undefined) committed(trx);
  return result;
}

async function withSavepoint<T>(trx: Transaction<Database>, work: () => Promise<T>): Promise<T> {
  const name = sql.id(`quire_sp_${++savepoints}`);
  await sql`savepoint ${name}`.execute(trx);
  const mark = afterCommitMark(trx);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    dropAfterCommit(trx, mark);
    await sql`rollback to savepoint ${name}`.execute(trx);
    await sql`release savepoint ${name}`.execute(trx);
    throw error;
  }
  await sql`release savepoint ${name}`.execute(trx);
  return result;
}
