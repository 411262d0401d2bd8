import { PostgresAdapter, sql, type Compilable, type OperationNodeSource, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** A write whose result nobody reads, only (when asked) how many rows it wrote. */
type Write = Compilable & OperationNodeSource;

interface Queued {
  query: Write;
  /** told the number of rows written; the query then returns a row per row written */
  counted?: (rows: number) => void;
}

/**
 * The writes a change makes that nothing in its transaction reads back (its history row, its audit
 * entry, its webhook deliveries…), queued as the change is recorded and sent together. On PostgreSQL
 * they go as one statement, each write a common table expression of it, so a change costs one round
 * trip for all of them instead of one each; they all see the database as it was before the statement,
 * which is why none may depend on another's rows. On SQLite, where a statement costs no round trip,
 * they run one after the other in the order queued.
 *
 * A subscriber that reads what an earlier one may have queued (the search index reads the page)
 * flushes first. ChangeRecorder flushes when every subscriber has run, before the change's use case
 * goes on.
 */
export class ChangeWrites {
  private queued: Queued[] = [];

  constructor(private readonly trx: Transaction<Database>) {}

  add(query: Write, counted?: (rows: number) => void): void {
    this.queued.push(counted === undefined ? { query } : { query, counted });
  }

  async flush(): Promise<void> {
    const writes = this.queued;
    if (writes.length === 0) return;
    this.queued = [];
    if (writes.length === 1 || !(this.trx.getExecutor().adapter instanceof PostgresAdapter)) {
      for (const write of writes) {
        const result = await this.trx.executeQuery(write.query.compile());
        write.counted?.(Number(result.numAffectedRows ?? result.rows.length));
      }
      return;
    }
    const name = (i: number) => sql.id(`quire_w${i}`);
    const ctes = writes.map((write, i) => sql`${name(i)} as (${write.query})`);
    const counts = writes.flatMap((write, i) =>
      write.counted === undefined ? [] : [sql`(select count(*) from ${name(i)}) as ${sql.id(`quire_n${i}`)}`],
    );
    const select = counts.length === 0 ? sql`select 1` : sql`select ${sql.join(counts)}`;
    const { rows } = await sql<Record<string, unknown>>`with ${sql.join(ctes)} ${select}`.execute(this.trx);
    const values = Object.values(rows[0] ?? {});
    let next = 0;
    for (const write of writes) {
      if (write.counted !== undefined) write.counted(Number(values[next++] ?? 0));
    }
  }
}
