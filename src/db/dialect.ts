import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Dialect } from 'kysely';
import type pg from 'pg';
import { lazyModule } from '../shared/lazy-module.ts';
import type { Executor } from './executor.ts';
import { SchemaPostgresDialect } from './introspection.ts';
import { reuseStatements } from './reused-statements.ts';
import { timedDialect, type QueryObserver } from './timed-dialect.ts';
import type { Database } from './schema.ts';
import { turnTakingDialect } from './writer-turns.ts';

/** Loaded when a PostgreSQL database is opened: SQLite deployments and commands never need it. */
const pgDriver = lazyModule<typeof pg>('pg');

export type DialectName = 'sqlite' | 'postgres';

/** The PostgreSQL pool's clients, for the metrics. */
export interface PoolStats {
  /** connections open, busy or idle */
  readonly total: number;
  readonly idle: number;
  /** queries waiting for a connection */
  readonly waiting: number;
}

export interface DatabaseHandle {
  /** the writer: every transaction and write goes through it */
  readonly db: Kysely<Database>;
  /**
   * For reads outside a transaction, long ones and streams above all. On SQLite a second, read-only
   * connection to the same file: in WAL mode it reads the last committed state while the writer
   * goes on, so a long read never holds up a write (nor sees one half done). On PostgreSQL, the pool.
   */
  readonly reader: Kysely<Database>;
  readonly dialect: DialectName;
  /**
   * The raw read-only SQLite connection, for statements prepared once on hot read paths; null on
   * PostgreSQL. It never sees a write that has not committed.
   */
  readonly readerSqlite: SQLite.Database | null;
  /**
   * Runs `read` in one read-only transaction that sees a single committed state of the database for
   * as long as it lasts, however long that is (an export streaming for minutes), without holding up
   * writers or other readers. On a SQLite file, a read-only connection of its own, opened for it and
   * closed after; on PostgreSQL, a REPEATABLE READ READ ONLY transaction on a pooled connection. An
   * in-memory SQLite database has no second connection: the read then runs in a transaction of the
   * writer, and writes wait for it.
   */
  snapshot<T>(read: (db: Executor) => Promise<T>): Promise<T>;
  /** The raw SQLite writer connection (tests and tools only); null on PostgreSQL. */
  readonly sqlite: SQLite.Database | null;
  /**
   * Whether the database answers a trivial query within `timeoutMs`: false when it fails or takes
   * longer, whatever the database is doing (the query itself is left to its own timeouts).
   */
  ping(timeoutMs: number): Promise<boolean>;
  /**
   * Errors of connections that no query was waiting on (PostgreSQL closed an idle connection: a
   * restart, a failover, pg_terminate_backend). The pool drops such a connection and opens another
   * when next needed; listeners only log.
   */
  onConnectionError(listener: (error: Error) => void): void;
  /** The pool's clients now; null on SQLite, which has no pool. */
  poolStats(): PoolStats | null;
  close(): Promise<void>;
}

async function ping(db: Kysely<Database>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answered = Promise.resolve()
    .then(() => sql`select 1`.execute(db))
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface OpenOptions {
  /** PostgreSQL only: the schema to use (created if missing); tests use one per app */
  schema?: string;
  /** PostgreSQL: statement_timeout of every connection (ms); default 10 s */
  statementTimeoutMs?: number;
  /** PostgreSQL: how long opening a connection may take (ms); default 5 s */
  connectTimeoutMs?: number;
  /**
   * SQLite: how much of the file the writer and the reader read through a memory map (bytes; 0 or
   * absent: none, every page read is a system call). A point read of a page row of a 1 GiB file took
   * 11 µs mapped, 17 µs through reads.
   */
  sqliteMmapBytes?: number;
  /**
   * Told of every statement issued through Kysely, with its duration; absent, nothing is timed.
   * Statements prepared on the raw SQLite connections are not seen.
   */
  onQuery?: QueryObserver;
}

export function openDatabase(url: string, options: OpenOptions = {}): DatabaseHandle {
  if (url.startsWith('sqlite:')) {
    return openSqlite(url.slice('sqlite:'.length), options.onQuery, options.sqliteMmapBytes ?? 0);
  }
  return openPostgres(url, options);
}

/** The dialect, timing its statements when someone listens. */
const observed = (dialect: Dialect, onQuery: QueryObserver | undefined): Dialect =>
  onQuery ? timedDialect(dialect, onQuery) : dialect;

/**
 * Puts the file in WAL mode (a property of the file: after its first open there is nothing to do).
 * The conversion takes the file exclusively from the shared lock the connection reads with, and where
 * another process holds or awaits the write lock, SQLite refuses at once rather than run the busy
 * handler, which could deadlock: two servers opening one new file together failed to start with
 * "database is locked". The mode is read first, and the conversion tried again for up to `waitMs`.
 */
function useWal(sqlite: SQLite.Database, file: string, waitMs: number): void {
  const deadline = Date.now() + waitMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let ms = 1; ; ms = Math.min(ms * 2, 50)) {
    try {
      if (sqlite.pragma('journal_mode', { simple: true }) === 'wal') return;
      if (sqlite.pragma('journal_mode = WAL', { simple: true }) === 'wal') return;
    } catch (error) {
      const busy = error instanceof SQLite.SqliteError && error.code.startsWith('SQLITE_BUSY');
      if (!busy || Date.now() >= deadline) throw error;
    }
    if (Date.now() >= deadline) throw new Error(`SQLite could not put ${file} in WAL mode`);
    // Synchronous, as opening is: a start-up moment, not a request.
    Atomics.wait(pause, 0, 0, ms);
  }
}

function openSqlite(file: string, onQuery: QueryObserver | undefined, mmapBytes: number): DatabaseHandle {
  const inMemory = file === ':memory:';
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  // First: another process opening the same new file may hold a lock while it turns WAL on.
  sqlite.pragma('busy_timeout = 5000');
  if (!inMemory) useWal(sqlite, file, 5000);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  if (mmapBytes > 0 && !inMemory) sqlite.pragma(`mmap_size = ${Math.floor(mmapBytes)}`);
  // Statements are prepared once per text (Kysely would prepare each anew).
  reuseStatements(sqlite);
  // Its statements run on the event loop: a long run of them gives the loop turns (writer-turns.ts).
  const db = new Kysely<Database>({
    dialect: turnTakingDialect(observed(new SqliteDialect({ database: sqlite }), onQuery)),
  });
  // An in-memory database has no file for a second connection to open: it reads on the writer.
  const readerSqlite = inMemory ? sqlite : new SQLite(file, { readonly: true });
  if (!inMemory) {
    readerSqlite.pragma('busy_timeout = 5000');
    if (mmapBytes > 0) readerSqlite.pragma(`mmap_size = ${Math.floor(mmapBytes)}`);
    // The reader's too: a read by slugs that missed the caches prepared its version and section
    // queries anew each time (8% of its CPU).
    reuseStatements(readerSqlite);
  }
  const reader = inMemory
    ? db
    : new Kysely<Database>({ dialect: observed(new SqliteDialect({ database: readerSqlite }), onQuery) });
  return {
    db,
    reader,
    dialect: 'sqlite',
    sqlite,
    readerSqlite,
    snapshot: async (read) => {
      if (inMemory) return db.transaction().execute(read);
      const own = new Kysely<Database>({
        dialect: observed(new SqliteDialect({ database: new SQLite(file, { readonly: true }) }), onQuery),
      });
      try {
        return await own.transaction().execute(read);
      } finally {
        await own.destroy();
      }
    },
    ping: (timeoutMs) => ping(reader, timeoutMs),
    // An embedded database has no connection to lose.
    onConnectionError: () => undefined,
    poolStats: () => null,
    async close() {
      // Kysely's SQLite driver closes the connection it was given, but only once it has used it:
      // the raw connections are closed here too, whichever of them Kysely never touched.
      if (reader !== db) await reader.destroy();
      await db.destroy();
      if (readerSqlite.open) readerSqlite.close();
      if (sqlite.open) sqlite.close();
    },
  };
}

function openPostgres(url: string, options: OpenOptions): DatabaseHandle {
  const { schema } = options;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`Invalid schema name '${schema}'`);
  }
  const statementTimeout = options.statementTimeoutMs ?? 10_000;
  const pool = new (pgDriver().Pool)({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    // Cancelled by the server past this; and given up by the client a little later, for a server
    // that no longer answers at all (a hung host cancels nothing).
    statement_timeout: statementTimeout,
    query_timeout: statementTimeout + 2_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    // Names this pool's sessions, so that operators (and the tests) can tell them apart.
    application_name: schema ? `quire ${schema}` : 'quire',
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const listeners: Array<(error: Error) => void> = [];
  const report = (error: Error): void => {
    for (const listener of listeners) listener(error);
  };
  // Without a listener, an 'error' event kills the process. The pool reports errors of idle
  // connections; a connection checked out (between two statements of a transaction) reports on
  // itself, so every connection gets a listener of its own too. The statement waiting on it fails
  // with the error, and the pool discards the connection when it is released.
  pool.on('error', report);
  pool.on('connect', (client) => client.on('error', report));
  // With a schema of its own, nothing of the database's other schemas is ever looked at.
  const dialect = schema ? new SchemaPostgresDialect({ pool }, schema) : new PostgresDialect({ pool });
  const db = new Kysely<Database>({ dialect: observed(dialect, options.onQuery) });
  return {
    db,
    reader: db,
    dialect: 'postgres',
    sqlite: null,
    readerSqlite: null,
    snapshot: (read) =>
      db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read),
    ping: (timeoutMs) => ping(db, timeoutMs),
    onConnectionError: (listener) => listeners.push(listener),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}
