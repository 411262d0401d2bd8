import { Migrator, sql, type Migration as KyselyMigration, type MigrationProvider } from 'kysely';
import type { DatabaseHandle } from './dialect.ts';
import type { Migration } from './migrations/helpers.ts';
import { initial } from './migrations/0001-initial.ts';
import { pagesListingIndex } from './migrations/0002-pages-listing-index.ts';
import { changelogs } from './migrations/0003-changelogs.ts';

/** Append-only: never edit a migration that has shipped; add the next one here. */
const MIGRATIONS: readonly Migration[] = [initial, pagesListingIndex, changelogs];

export async function migrateToLatest(handle: DatabaseHandle, schema?: string): Promise<string[]> {
  if (handle.dialect === 'postgres' && schema !== undefined) {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(handle.db);
  }
  const provider: MigrationProvider = {
    getMigrations: () =>
      Promise.resolve(
        Object.fromEntries(
          MIGRATIONS.map((m): [string, KyselyMigration] => [
            m.name,
            { up: (db) => m.up({ db, dialect: handle.dialect }) },
          ]),
        ),
      ),
  };
  const migrator = new Migrator({
    db: handle.db,
    provider,
    ...(schema !== undefined && handle.dialect === 'postgres' ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error('Migration failed', { cause: error });
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
