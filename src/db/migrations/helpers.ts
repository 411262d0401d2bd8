import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/** What one migration gets: a schema-only Kysely and the dialect, for the few portable helpers below. */
export interface MigrationContext {
  // Migrations must not depend on the current row types, which change over time.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  dialect: DialectName;
}

export interface Migration {
  name: string;
  up(ctx: MigrationContext): Promise<void>;
}

/** Integer identity primary key: INTEGER AUTOINCREMENT on SQLite, SERIAL on PostgreSQL. */
export function withId<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: DialectName,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'sqlite'
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    : table.addColumn('id', 'serial', (c) => c.primaryKey());
}

/** Timestamps are ISO 8601 UTC text on both dialects. */
export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();
