import { sql, type Transaction } from 'kysely';
import type { DialectName } from './dialect.ts';
import type { Database } from './schema.ts';

/**
 * Holds a lock until the transaction ends, so that work two instances could start together on one
 * database (the first start's demo project) runs once, the second seeing what the first made. Call
 * it first in the transaction.
 *
 * PostgreSQL: a named advisory lock. SQLite has one writer at a time, but a transaction that reads
 * before it writes keeps the snapshot of its first read: when another process commits meanwhile,
 * its first write fails at once ("database is locked") rather than waiting. A write that changes
 * nothing, as the transaction's first statement, takes the file's write lock instead (waiting as any
 * write does), and every read after it sees what the other process committed. The name does not
 * matter there: the lock is the whole file's.
 */
export async function lockForTransaction(
  trx: Transaction<Database>,
  dialect: DialectName,
  name: string,
): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
  else await sql`delete from projects where 0`.execute(trx);
}
