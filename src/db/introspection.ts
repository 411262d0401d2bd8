import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  type PostgresDialectConfig,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  table: string;
  kind: string;
  column: string;
  data_type: string;
  data_type_schema: string;
  not_null: boolean;
  has_default: boolean;
  auto_incrementing: boolean;
  comment: string | null;
}

type Column = TableMetadata['columns'][number];

/**
 * What the database holds, looked up in one schema only. Kysely's own PostgreSQL introspector reads
 * every column of every table of every schema, and its migrator asks it at each start whether the
 * migration tables exist: in a database that other schemas share, that read fails when one of them
 * is dropped while it runs ("schema … does not exist"), and it grows with all of them.
 */
export class SchemaIntrospector implements DatabaseIntrospector {
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly schema: string,
  ) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`
      select nspname as name from pg_catalog.pg_namespace where nspname = ${this.schema}`.execute(this.db);
    return rows;
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as table, c.relkind as kind, a.attname as column,
        t.typname as data_type, tn.nspname as data_type_schema,
        a.attnotnull as not_null, a.atthasdef as has_default,
        (a.attidentity <> '' or pg_catalog.pg_get_serial_sequence(
          pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname), a.attname
        ) is not null) as auto_incrementing,
        pg_catalog.col_description(a.attrelid, a.attnum) as comment
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      join pg_catalog.pg_type t on t.oid = a.atttypid
      join pg_catalog.pg_namespace tn on tn.oid = t.typnamespace
      where n.nspname = ${this.schema} and c.relkind in ('r', 'v', 'p')
      order by c.relname, a.attnum`.execute(this.db);
    const internal = new Set([DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE]);
    const tables = new Map<string, { table: TableMetadata; columns: Column[] }>();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && internal.has(row.table)) continue;
      let entry = tables.get(row.table);
      if (entry === undefined) {
        const columns: Column[] = [];
        entry = {
          table: { name: row.table, schema: this.schema, isView: row.kind === 'v', columns },
          columns,
        };
        tables.set(row.table, entry);
      }
      entry.columns.push({
        name: row.column,
        dataType: row.data_type,
        dataTypeSchema: row.data_type_schema,
        isNullable: !row.not_null,
        isAutoIncrementing: row.auto_incrementing,
        hasDefaultValue: row.has_default,
        ...(row.comment !== null ? { comment: row.comment } : {}),
      });
    }
    return [...tables.values()].map((entry) => entry.table);
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** PostgreSQL with its introspection kept to the one schema Quire was given to work in. */
export class SchemaPostgresDialect extends PostgresDialect {
  constructor(
    config: PostgresDialectConfig,
    private readonly schema: string,
  ) {
    super(config);
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SchemaIntrospector(db, this.schema);
  }
}
