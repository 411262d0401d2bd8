import type SQLite from 'better-sqlite3';
import type { DatabaseHandle } from './dialect.ts';

/** A stamp read waiting for the next query. */
interface Waiter {
  projectId: number;
  resolve: (stamp: string | null) => void;
}

/**
 * Each project's change stamp: a counter row that triggers bump in the transaction of every write to
 * what a page answer is made of (migrations/0010-change-stamps.ts), so it moves when such a
 * write commits, whatever made it, seen alike by every instance on the database. A cache keeps an answer under the stamp it read before reading the
 * answer's data, and serves it only while a stamp read made after the request arrived is the same.
 *
 * On SQLite the stamp is a point read of a statement prepared on the read connection (microseconds).
 * On PostgreSQL reads are batched: one query at a time reads the stamps of every request that arrived
 * before it started; a request arriving while a query is in flight waits for the next one, never for
 * an answer that may predate it.
 */
export class ChangeStamps {
  private statement: SQLite.Statement<[number], number | bigint | string> | null = null;
  private waiting: Waiter[] = [];
  private querying = false;

  constructor(private readonly database: DatabaseHandle) {}

  /**
   * The project's stamp as committed now, or null when none can be read (an in-memory SQLite database
   * inside a transaction, whose reads would see uncommitted rows; a failed query): nothing is then
   * served from, or kept in, a cache.
   */
  current(projectId: number): Promise<string | null> | string | null {
    const sqlite = this.database.readerSqlite;
    if (sqlite === null) {
      return new Promise((resolve) => {
        this.waiting.push({ projectId, resolve });
        if (!this.querying) void this.drain();
      });
    }
    if (sqlite.inTransaction) return null;
    this.statement ??= sqlite
      .prepare<[number], number | bigint | string>('select stamp from change_stamps where project_id = ?')
      .pluck();
    return String(this.statement.get(projectId) ?? 0);
  }

  /** Runs queries while requests wait; each query takes every request waiting when it starts. */
  private async drain(): Promise<void> {
    this.querying = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        const ids = [...new Set(batch.map((w) => w.projectId))];
        let stamps: Map<number, string> | null = null;
        try {
          const rows = await this.database.reader
            .selectFrom('change_stamps')
            .select(['project_id', 'stamp'])
            .where('project_id', 'in', ids)
            .execute();
          stamps = new Map(rows.map((row) => [row.project_id, String(row.stamp)]));
        } catch {
          // The request's own read reports the failure; without a stamp nothing is cached.
          stamps = null;
        }
        for (const waiter of batch)
          waiter.resolve(stamps === null ? null : (stamps.get(waiter.projectId) ?? '0'));
      }
    } finally {
      this.querying = false;
    }
  }
}
