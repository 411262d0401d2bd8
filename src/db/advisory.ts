import { sql, type Transaction } from 'kysely';
import type { DialectName } from './dialect.ts';
import type { Database } from './schema.ts';

/**
 * Holds a named lock until the transaction ends, so that work two instances could start together on
 * one PostgreSQL database (the first start's demo project) runs once, the second seeing what the first
 * made. SQLite needs none: it has one writer at a time.
 */
export async function lockForTransaction(
  trx: Transaction<Database>,
  dialect: DialectName,
  name: string,
): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
}
