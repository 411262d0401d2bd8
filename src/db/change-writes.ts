import {
  createQueryId,
  InsertQueryNode,
  PostgresAdapter,
  sql,
  ValuesNode,
  type Compilable,
  type CompiledQuery,
  type OperationNodeSource,
  type Transaction,
} from 'kysely';
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
 * they run one after the other in the order queued, inserts of the same rows' shape into the same
 * table that follow one another as one statement (a change's audit entries, or those of many changes
 * recorded together: ChangeRecorder.release).
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

  private compile(node: InsertQueryNode): CompiledQuery {
    return this.trx.getExecutor().compileQuery(node, createQueryId());
  }

  async flush(): Promise<void> {
    const writes = this.queued;
    if (writes.length === 0) return;
    this.queued = [];
    if (writes.length === 1 || !(this.trx.getExecutor().adapter instanceof PostgresAdapter)) {
      for (const write of merged(writes)) {
        const query = 'query' in write ? write.query.compile() : this.compile(write.node);
        const result = await this.trx.executeQuery(query);
        if ('counted' in write) write.counted?.(Number(result.numAffectedRows ?? result.rows.length));
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

/** A multi-row insert stays well under SQLite's limit of parameters in one statement. */
const MERGED_PARAMETERS = 5000;

/** The insert of plain rows a write is, when it is one: no returning, no conflict clause, no count. */
function plainInsert(write: Queued): InsertQueryNode | null {
  if (write.counted !== undefined) return null;
  const node = write.query.toOperationNode();
  if (!InsertQueryNode.is(node) || node.values === undefined || !ValuesNode.is(node.values)) return null;
  const { kind: _kind, into: _into, columns: _columns, values: _values, ...rest } = node;
  return Object.values(rest).every((value) => value === undefined) ? node : null;
}

const sameShape = (a: InsertQueryNode, b: InsertQueryNode): boolean =>
  a.into?.table.identifier.name === b.into?.table.identifier.name &&
  a.into?.table.schema?.name === b.into?.table.schema?.name &&
  (a.columns ?? []).map((c) => c.column.name).join() === (b.columns ?? []).map((c) => c.column.name).join();

/** The writes in order, each run of plain inserts of one shape joined into one insert. */
function merged(writes: readonly Queued[]): Array<Queued | { node: InsertQueryNode }> {
  const out: Array<Queued | { node: InsertQueryNode }> = [];
  let run: InsertQueryNode | null = null;
  for (const write of writes) {
    const insert = plainInsert(write);
    const last = out[out.length - 1];
    const rows = (node: InsertQueryNode) => (node.values as ValuesNode).values;
    if (
      insert !== null &&
      run !== null &&
      last !== undefined &&
      'node' in last &&
      sameShape(run, insert) &&
      (rows(run).length + rows(insert).length) * (insert.columns?.length ?? 1) <= MERGED_PARAMETERS
    ) {
      const values = ValuesNode.create([...rows(run), ...rows(insert)]);
      run = InsertQueryNode.cloneWith(run, { values });
      last.node = run;
      continue;
    }
    run = insert;
    out.push(insert === null ? write : { node: insert });
  }
  return out;
}
