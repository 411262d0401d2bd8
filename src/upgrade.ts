import type { Kysely } from 'kysely';
import type { DatabaseHandle } from './db/dialect.ts';
import { migrateToLatest } from './db/migrate.ts';
import type { Database } from './db/schema.ts';
import { rebuildSearchIndex } from './modules/search/search.indexer.ts';

/**
 * Brings a database to the latest schema, with the data steps some migrations need: the migration
 * that creates the search index fills it from what is already stored. Every start, `bin/quire
 * migrate` and the tests go through here. Returns the migrations applied.
 */
export function upgradeDatabase(handle: DatabaseHandle, schema?: string): Promise<string[]> {
  return migrateToLatest(handle, schema, {
    '0004-search': (db) => rebuildSearchIndex(db as Kysely<Database>, handle.dialect),
  });
}
