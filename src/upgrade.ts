import type { Kysely } from 'kysely';
import type { DatabaseHandle } from './db/dialect.ts';
import { migrateToLatest } from './db/migrate.ts';
import type { Database } from './db/schema.ts';
import { rebuildSearchIndex } from './modules/search/search.indexer.ts';

/**
 * Brings a database to the latest schema, with the data steps some migrations need: the migration
 * that last made the search index anew (0007; 0004 created it first, and a database upgraded across
 * both is indexed once, at 0007, when every table the index reads exists) fills it from what is
 * already stored. Every start, `bin/quire migrate` and the tests go through here. Returns the
 * migrations applied.
 */
export function upgradeDatabase(handle: DatabaseHandle, schema?: string): Promise<string[]> {
  return migrateToLatest(handle, schema, {
    '0007-search-posts': (db) => rebuildSearchIndex(db as Kysely<Database>, handle.dialect),
  });
}
