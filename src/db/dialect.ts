import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /**
   * The raw SQLite connection, for prepared statements on hot read paths; null on PostgreSQL. It is
   * Kysely's one connection: a statement run on it while a Kysely transaction is open reads inside
   * that transaction, so hot paths check `inTransaction` first.
   */
  readonly sqlite: SQLite.Database | null;
  /**
   * A value that changes whenever the database may have changed: a write through this handle, or
   * (within a millisecond) a commit by any other connection to the same file. Null where no such cheap check exists
   * (PostgreSQL), or while a transaction is open on the SQLite connection. Caches of derived data
   * compare it to decide whether what they hold can still be served.
   */
  changeStamp(): string | null;
  close(): Promise<void>;
}

/**
 * Counts writes issued through Kysely: inserts, updates and deletes, once when compiled and once
 * when they have run, so a read that looked at the count in between cannot take old rows for new.
 */
class WriteCounter implements KyselyPlugin {
  writes = 0;
  private readonly pending = new WeakSet<object>();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const kind = args.node.kind;
    if (kind === 'InsertQueryNode' || kind === 'UpdateQueryNode' || kind === 'DeleteQueryNode') {
      this.writes++;
      this.pending.add(args.queryId);
    }
    return args.node;
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.pending.has(args.queryId)) {
      this.pending.delete(args.queryId);
      this.writes++;
    }
    return Promise.resolve(args.result);
  }
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
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  const counter = new WriteCounter();
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), plugins: [counter] });
  // data_version changes when another connection (another instance on the same file) commits.
  // Reading it takes the file's shared lock, which cost 7% of a cached page read in a profile, so
  // it is read at most once a millisecond: a commit elsewhere is seen within that time.
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
    dialect: 'sqlite',
    sqlite,
    changeStamp: () => (sqlite.inTransaction ? null : `${counter.writes}:${currentDataVersion()}`),
    // Kysely's SQLite driver closes the connection it was given.
    close: () => db.destroy(),
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
  return { db, dialect: 'postgres', sqlite: null, changeStamp: () => null, close: () => db.destroy() };
}
