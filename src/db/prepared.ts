import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { DatabaseHandle } from './dialect.ts';
import type { Executor } from './executor.ts';
import type { Database } from './schema.ts';

type Slot = { arg: number } | { value: unknown };

const MARKER = '\u0000quire-param:';

/**
 * A read written once with Kysely and compiled once, then run with new arguments without compiling
 * again: outside a transaction on SQLite as a statement prepared on the read-only connection (no
 * query compilation, no connection queue: most of the cost of a point read), otherwise through
 * Kysely on the transaction given or the reader. One definition serves the hot path and the reads
 * inside a use case's transaction alike.
 *
 * `build` receives placeholders in place of its arguments and must use each only as a bound value
 * (never to choose the query's shape); they become the statement's parameters.
 */
export class PreparedRead<A extends readonly unknown[], R> {
  private compiled: { sql: string; slots: Slot[] } | null = null;
  private statement: SQLite.Statement<unknown[], R> | null = null;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly arity: A['length'],
    private readonly build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
  ) {}

  /** Every row, on `trx` when the caller is inside a transaction, else on the read connection. */
  async all(trx: Executor | undefined, ...args: A): Promise<R[]> {
    const statement = trx === undefined ? this.prepared() : null;
    if (statement) return statement.all(...this.parameters(args));
    return this.viaKysely(trx, args);
  }

  async first(trx: Executor | undefined, ...args: A): Promise<R | undefined> {
    const statement = trx === undefined ? this.prepared() : null;
    if (statement) return statement.get(...this.parameters(args));
    return (await this.viaKysely(trx, args))[0];
  }

  private async viaKysely(trx: Executor | undefined, args: A): Promise<R[]> {
    const { sql } = (this.compiled ??= this.compile());
    const query = CompiledQuery.raw(sql, this.parameters(args));
    return (await (trx ?? this.handle.reader).executeQuery<R>(query)).rows;
  }

  private parameters(args: A): unknown[] {
    const { slots } = (this.compiled ??= this.compile());
    return slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value));
  }

  /**
   * The statement on SQLite's read connection, prepared on first use (the tables exist only once
   * migrations have run). Null on PostgreSQL, and where the reader is the writer (an in-memory
   * database) while a transaction is open on it, since the statement would read inside it.
   */
  private prepared(): SQLite.Statement<unknown[], R> | null {
    const sqlite = this.handle.readerSqlite;
    if (sqlite === null || sqlite.inTransaction) return null;
    this.statement ??= sqlite.prepare<unknown[], R>((this.compiled ??= this.compile()).sql);
    return this.statement;
  }

  private compile(): { sql: string; slots: Slot[] } {
    return compileWithMarkers(this.arity, (...markers) =>
      this.build(this.handle.db, ...(markers as unknown as A)),
    );
  }
}

/**
 * A read of a write, written once with Kysely and compiled once per database (the first transaction
 * it runs in names the dialect), then run in any transaction with new arguments: a write's reads have
 * no handle of their own to prepare with, as PreparedRead's do, and building and compiling a query
 * anew cost more than running it. `build` follows PreparedRead's rule.
 */
export class CompiledRead<A extends readonly unknown[], R> {
  private readonly compiled = new WeakMap<object, { sql: string; slots: Slot[] }>();

  constructor(
    private readonly arity: A['length'],
    private readonly build: (db: Executor, ...args: A) => Compilable<R>,
  ) {}

  async first(db: Executor, ...args: A): Promise<R | undefined> {
    const adapter = db.getExecutor().adapter;
    let compiled = this.compiled.get(adapter);
    if (compiled === undefined) {
      compiled = compileWithMarkers(this.arity, (...markers) => this.build(db, ...(markers as unknown as A)));
      this.compiled.set(adapter, compiled);
    }
    const parameters = compiled.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value));
    return (await db.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters))).rows[0];
  }
}

/** A query built with markers in place of its arguments, compiled: its SQL and where each goes. */
function compileWithMarkers(
  arity: number,
  build: (...markers: unknown[]) => Compilable<unknown>,
): { sql: string; slots: Slot[] } {
  const markers = Array.from({ length: arity }, (_, i) => `${MARKER}${i}`);
  const query = build(...markers).compile();
  const slots = query.parameters.map((value): Slot => {
    if (typeof value === 'string' && value.startsWith(MARKER)) {
      return { arg: Number(value.slice(MARKER.length)) };
    }
    return { value };
  });
  const used = new Set(slots.flatMap((s) => ('arg' in s ? [s.arg] : [])));
  if (used.size !== arity) throw new Error('PreparedRead: every argument must be a bound value');
  return { sql: query.sql, slots };
}
