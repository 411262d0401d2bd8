import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

export type DialectName = 'sqlite' | 'postgres';

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
  /** The raw SQLite writer connection (tests and tools only); null on PostgreSQL. */
  readonly sqlite: SQLite.Database | null;
  /**
   * A value that changes whenever the database may have changed: any write on the writer connection,
   * through Kysely or not (SQLite's total_changes()), or (within a millisecond) a commit by any other
   * connection to the same file (PRAGMA data_version). Null where no such cheap check exists
   * (PostgreSQL), or while a transaction is open on the writer. Caches of derived data compare it to
   * decide whether what they hold can still be served.
   */
  changeStamp(): string | null;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL only: the schema to use (created if missing); tests use one per app */
  schema?: string;
}

export function openDatabase(url: string, options: OpenOptions = {}): DatabaseHandle {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  return openPostgres(url, options.schema);
}

function openSqlite(file: string): DatabaseHandle {
  const inMemory = file === ':memory:';
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  // An in-memory database has no file for a second connection to open: it reads on the writer.
  const readerSqlite = inMemory ? sqlite : new SQLite(file, { readonly: true });
  if (!inMemory) readerSqlite.pragma('busy_timeout = 5000');
  const reader = inMemory
    ? db
    : new Kysely<Database>({ dialect: new SqliteDialect({ database: readerSqlite }) });

  // total_changes() counts every row the writer connection changed, whatever issued the statement;
  // it is a function call, no file access. data_version changes when another connection (another
  // instance on the same file) commits; reading it takes the file's shared lock, which cost 7% of a
  // cached page read in a profile, so it is read at most once a millisecond.
  const totalChanges = sqlite.prepare<[], number>('select total_changes()').pluck();
  const dataVersion = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  let checkedAt = Number.NEGATIVE_INFINITY;
  let version = 0;
  const currentDataVersion = (): number => {
    const now = performance.now();
    if (now - checkedAt >= 1) {
      version = dataVersion.get() ?? 0;
      checkedAt = now;
    }
    return version;
  };
  return {
    db,
    reader,
    dialect: 'sqlite',
    sqlite,
    readerSqlite,
    changeStamp: () => (sqlite.inTransaction ? null : `${totalChanges.get() ?? 0}:${currentDataVersion()}`),
    async close() {
      // Kysely's SQLite driver closes the connection it was given.
      if (reader !== db) await reader.destroy();
      await db.destroy();
    },
  };
}

function openPostgres(url: string, schema?: string): DatabaseHandle {
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`Invalid schema name '${schema}'`);
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    reader: db,
    dialect: 'postgres',
    sqlite: null,
    readerSqlite: null,
    changeStamp: () => null,
    close: () => db.destroy(),
  };
}
