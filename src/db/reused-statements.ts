import type SQLite from 'better-sqlite3';

/** Connections whose statements are kept already. */
const reusing = new WeakSet<SQLite.Database>();

/** What changes a statement for good: whoever calls one of these keeps the statement for itself. */
const SETTINGS = ['pluck', 'expand', 'raw', 'bind', 'safeIntegers'] as const;

/**
 * Keeps the statements a better-sqlite3 connection prepares, by their SQL, and hands the same one out
 * again: Kysely prepares every statement it runs anew, and on a write, whose statements each touch a
 * row or two, preparing them was about a third of the server's CPU time. A statement in the middle of
 * an iteration (a stream) is not handed out: another is prepared. One whose mode or parameters a
 * caller sets (pluck, raw, bind…) leaves the cache at that moment, so that it is that caller's alone
 * and nobody else's setting reaches it. The least recently used statements go past `capacity`.
 */
export function reuseStatements(sqlite: SQLite.Database, capacity = 500): void {
  if (reusing.has(sqlite)) return;
  reusing.add(sqlite);
  const prepare = sqlite.prepare.bind(sqlite);
  const kept = new Map<string, SQLite.Statement>();
  const fresh = (source: string): SQLite.Statement => {
    const statement = prepare(source);
    for (const name of SETTINGS) {
      const setting = (statement[name] as (...args: unknown[]) => SQLite.Statement).bind(statement);
      Object.defineProperty(statement, name, {
        value: (...args: unknown[]) => {
          if (kept.get(source) === statement) kept.delete(source);
          return setting(...args);
        },
      });
    }
    return statement;
  };
  const reused = (source: string): SQLite.Statement => {
    let statement = kept.get(source);
    // Most recently used last: the Map's order is the order of eviction.
    kept.delete(source);
    if (statement === undefined || statement.busy) statement = fresh(source);
    kept.set(source, statement);
    if (kept.size > capacity) kept.delete(kept.keys().next().value as string);
    return statement;
  };
  sqlite.prepare = reused as SQLite.Database['prepare'];
}
