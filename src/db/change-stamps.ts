import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { DatabaseHandle } from './dialect.ts';
import type { Executor } from './executor.ts';
import { PreparedRead } from './prepared.ts';

/** A stamp read waiting for the next read. */
interface Waiter {
  projectId: number;
  resolve: (stamp: string | null) => void;
}

/**
 * Each project's change stamp: a counter row that triggers bump in the transaction of every write to
 * what a page or search answer is made of (migrations/0010-change-stamps.ts, 0015), so it moves when such a write
 * commits, whatever made it, seen alike by every instance on the database. A cache keeps an answer
 * under the stamp it read before reading the answer's data, and serves it only while a stamp read
 * made after the request arrived is the same.
 *
 * Reads are batched: one read serves every request that asked before it started, and a request
 * asking while one is under way waits for the next, never for a stamp that may predate it.
 * - SQLite: one point read, on the read connection, at the end of the event loop's turn
 *   (`setImmediate`) for the requests of that turn. The read itself is cheap, but each one takes and
 *   releases the shared lock of the WAL index (three system calls): alone per request, it cost more
 *   than the rest of a cached answer's JavaScript.
 * - PostgreSQL: one query at a time, for the requests that arrived before it started.
 */
export class ChangeStamps {
  private statement: SQLite.Statement<[number], number | bigint | string> | null = null;
  private waiting: Waiter[] = [];
  /** SQLite: a read is scheduled for the end of this turn; PostgreSQL: a query is running */
  private busy = false;
  /** PostgreSQL: the stamps of a list of projects, compiled once (one query for any number of them) */
  private readonly stampsOf: PreparedRead<[number[]], { project_id: number; stamp: string | number }>;

  constructor(private readonly database: DatabaseHandle) {
    this.stampsOf = new PreparedRead(database, 1, (db, ids: number[]) =>
      db
        .selectFrom('change_stamps')
        .select(['project_id', 'stamp'])
        .where('project_id', '=', sql<number>`any(${ids})`),
    );
  }

  /**
   * The project's stamp as committed now, or null when none can be read (an in-memory SQLite database
   * inside a transaction, whose reads would see uncommitted rows; a failed read): nothing is then
   * served from, or kept in, a cache.
   */
  current(projectId: number): Promise<string | null> {
    return new Promise((resolve) => {
      this.waiting.push({ projectId, resolve });
      if (this.busy) return;
      this.busy = true;
      if (this.database.readerSqlite === null) void this.drain();
      else setImmediate(this.readSqlite);
    });
  }

  /** SQLite: reads the stamps of every request waiting, once per project. */
  private readonly readSqlite = (): void => {
    this.busy = false;
    const batch = this.waiting;
    this.waiting = [];
    const stamps = new Map<number, string | null>();
    for (const waiter of batch) {
      let stamp = stamps.get(waiter.projectId);
      if (stamp === undefined) {
        stamp = this.sqliteStamp(waiter.projectId);
        stamps.set(waiter.projectId, stamp);
      }
      waiter.resolve(stamp);
    }
  };

  private sqliteStamp(projectId: number): string | null {
    const sqlite = this.database.readerSqlite;
    if (sqlite === null || sqlite.inTransaction) return null;
    try {
      this.statement ??= sqlite
        .prepare<[number], number | bigint | string>('select stamp from change_stamps where project_id = ?')
        .pluck();
      return String(this.statement.get(projectId) ?? 0);
    } catch {
      // The request's own read reports the failure; without a stamp nothing is cached.
      return null;
    }
  }

  /** PostgreSQL: runs queries while requests wait; each query takes every request waiting when it starts. */
  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        const ids = [...new Set(batch.map((w) => w.projectId))];
        let stamps: Map<number, string> | null = null;
        try {
          const rows = await this.stampsOf.all(undefined, ids);
          stamps = new Map(rows.map((row) => [row.project_id, String(row.stamp)]));
        } catch {
          // The request's own read reports the failure; without a stamp nothing is cached.
          stamps = null;
        }
        for (const waiter of batch)
          waiter.resolve(stamps === null ? null : (stamps.get(waiter.projectId) ?? '0'));
      }
    } finally {
      this.busy = false;
    }
  }
}

/**
 * Moves the project's stamp in `trx`, for a write the triggers do not watch that changes what an
 * answer holds: the search index rebuilt from what is stored (`bin/quire search reindex`, another
 * process, whose answers the servers' caches must not keep serving).
 */
export async function bumpChangeStamp(trx: Executor, projectId: number): Promise<void> {
  await trx
    .insertInto('change_stamps')
    .values({ project_id: projectId, stamp: 1 })
    .onConflict((oc) => oc.column('project_id').doUpdateSet({ stamp: sql`change_stamps.stamp + 1` }))
    .execute();
}
