import {
  DEFAULT_MIGRATION_TABLE,
  Migrator,
  sql,
  type Kysely,
  type Migration as KyselyMigration,
  type MigrationProvider,
  type MigrationResultSet,
} from 'kysely';
import type SQLite from 'better-sqlite3';
import { ConfigError } from '../config.ts';
import type { DatabaseHandle } from './dialect.ts';
import type { Database } from './schema.ts';
import type { Migration } from './migrations/helpers.ts';
import { initial } from './migrations/0001-initial.ts';
import { pagesListingIndex } from './migrations/0002-pages-listing-index.ts';
import { changelogs } from './migrations/0003-changelogs.ts';
import { search } from './migrations/0004-search.ts';
import { idempotency } from './migrations/0005-idempotency.ts';
import { newerOperations } from './migrations/0006-newer-operations.ts';
import { searchPosts } from './migrations/0007-search-posts.ts';
import { linkScans } from './migrations/0008-link-scans.ts';
import { webhooks } from './migrations/0009-webhooks.ts';
import { changeStamps } from './migrations/0010-change-stamps.ts';
import { renderedContents } from './migrations/0011-rendered-contents.ts';
import { searchWords } from './migrations/0012-search-words.ts';
import { versionScope } from './migrations/0013-version-scope.ts';
import { idempotencyHolder } from './migrations/0014-idempotency-holder.ts';
import { searchChangeStamps } from './migrations/0015-search-change-stamps.ts';
import { site } from './migrations/0016-site.ts';
import { formerSlugs } from './migrations/0017-former-slugs.ts';
import { webhookStamps } from './migrations/0018-webhook-stamps.ts';
import { stagedImports } from './migrations/0019-staged-imports.ts';
import { feedback } from './migrations/0020-feedback.ts';
import { readerLogin } from './migrations/0021-reader-login.ts';
import { referenceHistory } from './migrations/0023-reference-history.ts';
import { boundedStorage } from './migrations/0024-bounded-storage.ts';
import { historyNewestIndex } from './migrations/0025-history-newest-index.ts';

/** Append-only: never edit a migration that has shipped; add the next one here. */
const MIGRATIONS: readonly Migration[] = [
  initial,
  pagesListingIndex,
  changelogs,
  search,
  idempotency,
  newerOperations,
  searchPosts,
  linkScans,
  webhooks,
  changeStamps,
  renderedContents,
  searchWords,
  versionScope,
  idempotencyHolder,
  searchChangeStamps,
  site,
  formerSlugs,
  webhookStamps,
  stagedImports,
  feedback,
  readerLogin,
  referenceHistory,
  boundedStorage,
  historyNewestIndex,
];

/**
 * Work a migration needs from code above the database layer (deriving the search index from stored
 * pages needs the content engine), run right after that migration's own `up`, in its transaction.
 * The composition (src/upgrade.ts) supplies them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DataSteps = Readonly<Record<string, (db: Kysely<any>) => Promise<unknown>>>;

export async function migrateToLatest(
  handle: DatabaseHandle,
  schema: string | undefined,
  steps: DataSteps,
): Promise<string[]> {
  const provider: MigrationProvider = {
    getMigrations: () =>
      Promise.resolve(
        Object.fromEntries(
          MIGRATIONS.map((m): [string, KyselyMigration] => [
            m.name,
            {
              up: async (db) => {
                await m.up({ db, dialect: handle.dialect });
                await steps[m.name]?.(db);
              },
            },
          ]),
        ),
      ),
  };
  const migrator = (db: Kysely<Database>) =>
    new Migrator({
      db,
      provider,
      ...(schema !== undefined && handle.dialect === 'postgres' ? { migrationTableSchema: schema } : {}),
    });
  const migrate = (db: Kysely<Database>) => migrator(db).migrateToLatest();
  // An up-to-date database (every start but the first after an upgrade, every command) is seen to be
  // so with two reads, and takes no lock: a command run beside a long write need not wait for it.
  if (await upToDate(handle, schema)) return [];
  // A migration may rightly take longer than any request: on PostgreSQL it runs on one connection
  // with no statement timeout, which is restored (to the connection's default) afterwards.
  let outcome: MigrationResultSet;
  if (handle.dialect === 'postgres') {
    outcome = await handle.db.connection().execute(async (db) => {
      await sql`set statement_timeout = 0`.execute(db);
      try {
        if (schema !== undefined) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
        return await migrate(db);
      } finally {
        await sql`reset statement_timeout`.execute(db);
      }
    });
  } else {
    outcome = await underWriteLock(handle.sqlite, () => migrate(handle.db));
  }
  const { error, results } = outcome;
  if (error) throw error instanceof Error ? error : new Error('Migration failed', { cause: error });
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Whether the migrations applied are exactly this build's, read from the migration table itself.
 * A database with a migration this build does not know, which a newer build made, is refused
 * (ConfigError). Anything else (no table yet, one missing, a failed read) is left to the migrator,
 * which applies what is missing under its lock. Kysely's own check finds the table through the
 * catalog's every table and column: on a PostgreSQL database of many schemas that took half a second
 * per start.
 */
async function upToDate(handle: DatabaseHandle, schema: string | undefined): Promise<boolean> {
  const table =
    schema !== undefined && handle.dialect === 'postgres'
      ? sql.id(schema, DEFAULT_MIGRATION_TABLE)
      : sql.id(DEFAULT_MIGRATION_TABLE);
  // Looked for first, so that a new database's first start logs no failed statement.
  type Found = { found: string | null };
  const name = DEFAULT_MIGRATION_TABLE;
  const exists =
    handle.dialect === 'postgres'
      ? sql<Found>`select to_regclass(format('%I.%I', coalesce(${schema ?? null}::text,
          current_schema()), ${name}::text))::text as found`
      : sql<Found>`select name as found from sqlite_master where type = 'table' and name = ${name}`;
  let applied: Set<string>;
  try {
    const { rows: found } = await exists.execute(handle.db);
    if ((found[0]?.found ?? null) === null) return false;
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(handle.db);
    applied = new Set(rows.map((row) => row.name));
  } catch {
    return false;
  }
  const known = new Set(MIGRATIONS.map((m) => m.name));
  const unknown = [...applied].filter((name) => !known.has(name)).sort();
  if (unknown.length > 0) {
    throw new ConfigError([
      `DATABASE_URL names a database a newer Quire migrated: ${unknown.join(', ')} ` +
        `${unknown.length === 1 ? 'is a migration' : 'are migrations'} this build does not know. ` +
        'Run the newer build, or this one on a copy of the database from before that upgrade.',
    ]);
  }
  return applied.size === MIGRATIONS.length;
}

/** How long a start waits for another process's migration of the same SQLite file (ms). */
const MIGRATION_LOCK_WAIT_MS = 10 * 60 * 1000;

/**
 * SQLite: Kysely runs migrations there with no transaction and no lock (its adapter declares no
 * transactional DDL). Two processes starting on one new file both migrated it, and the second
 * stopped on a table the first had made; a process stopped half-way left a schema that no later
 * start could finish. The pending migrations run instead in one `BEGIN IMMEDIATE` transaction on the
 * writer: a second process waits for the first's write lock, then finds nothing to do, and a
 * failure or a crash leaves the file as it was.
 */
async function underWriteLock(
  sqlite: SQLite.Database | null,
  run: () => Promise<MigrationResultSet>,
): Promise<MigrationResultSet> {
  if (sqlite === null) throw new Error('a SQLite handle without its connection');
  const wait = sqlite.pragma('busy_timeout', { simple: true }) as number;
  sqlite.pragma(`busy_timeout = ${MIGRATION_LOCK_WAIT_MS}`);
  try {
    sqlite.exec('BEGIN IMMEDIATE');
  } finally {
    sqlite.pragma(`busy_timeout = ${wait}`);
  }
  let outcome: MigrationResultSet | undefined;
  try {
    outcome = await run();
    return outcome;
  } finally {
    // Kysely reports a failed migration in its result rather than throwing it.
    const succeeded = outcome !== undefined && outcome.error === undefined;
    if (sqlite.inTransaction) sqlite.exec(succeeded ? 'COMMIT' : 'ROLLBACK');
  }
}
