import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { upgradeDatabase } from '../src/upgrade.ts';
import { buildTestApp, dialectName, TEST_DATABASE_URL, type TestApp } from './helpers/test-app.ts';
import { newSchemaName } from './helpers/test-databases.ts';
import { migrateSchema, migrateSqliteFile } from './helpers/templates.ts';

/**
 * Test apps start from a copy of a template the migrations made once per run (test/helpers/
 * templates.ts). These compare what a test app gets with what the migrations make in an empty
 * database, as a first start of Quire does: any difference in the catalog fails them.
 */

const template = inject('quireTemplate');
const pgTemplate = template?.dialect === 'postgres' ? template : undefined;
const sqliteTemplate = template?.dialect === 'sqlite' ? template : undefined;

const apps: TestApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});
const app = async (migrated?: boolean): Promise<TestApp> => {
  const built = await buildTestApp(migrated === undefined ? {} : { migrated });
  apps.push(built);
  return built;
};

/**
 * Everything PostgreSQL holds about one schema that a migration can make, read from the catalog with
 * the schema's own name replaced, so that two schemas compare. Written apart from the copying code
 * (test/helpers/pg-template.ts) so as not to share its mistakes.
 */
const CATALOG: Record<string, string> = {
  relations: `
    select c.relname, c.relkind, c.relpersistence, c.reloptions, c.reltoastrelid <> 0 as toasted,
           c.relhastriggers, c.relrowsecurity, c.relreplident, c.relam
      from pg_class c where c.relnamespace = $1::regnamespace order by c.relname`,
  // A dropped column stays in the catalog, invisible to SQL, and keeps its number (migration 0012
  // drops two): columns compare by their order among those not dropped.
  columns: `
    select c.relname, row_number() over (partition by c.oid order by a.attnum) as position, a.attname,
           format_type(a.atttypid, a.atttypmod) as type, a.attnotnull,
           pg_get_expr(d.adbin, d.adrelid) as default, a.attgenerated, a.attidentity, a.attstorage,
           a.attcompression, co.collname, a.attstattarget
      from pg_attribute a
      join pg_class c on c.oid = a.attrelid
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      left join pg_collation co on co.oid = a.attcollation
     where c.relnamespace = $1::regnamespace and a.attnum > 0 and not a.attisdropped
     order by c.relname, a.attnum`,
  constraints: `
    select c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid) as definition, k.condeferrable,
           k.condeferred, k.convalidated, k.conislocal, i.relname as index
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      left join pg_class i on i.oid = k.conindid
     where k.connamespace = $1::regnamespace order by c.relname, k.conname`,
  indexes: `
    select i.relname, pg_get_indexdef(x.indexrelid) as definition, x.indisprimary, x.indisunique,
           x.indisvalid, x.indisready, x.indnullsnotdistinct
      from pg_index x join pg_class i on i.oid = x.indexrelid
     where i.relnamespace = $1::regnamespace order by i.relname`,
  sequences: `
    select s.sequencename, s.data_type::text, s.start_value, s.min_value, s.max_value, s.increment_by,
           s.cycle, s.cache_size, s.last_value,
           (select t.relname || '.' || a.attname
              from pg_depend d
              join pg_class t on t.oid = d.refobjid
              join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
             where d.classid = 'pg_class'::regclass and d.objid = format('%I.%I', s.schemaname, s.sequencename)::regclass
               and d.refclassid = 'pg_class'::regclass and d.deptype in ('a', 'i')) as owned_by
      from pg_sequences s where s.schemaname = $1 order by s.sequencename`,
  triggers: `
    select c.relname, t.tgname, pg_get_triggerdef(t.oid) as definition, t.tgenabled, t.tgisinternal,
           t.tgtype, t.tgdeferrable
      from pg_trigger t join pg_class c on c.oid = t.tgrelid
     where c.relnamespace = $1::regnamespace and not t.tgisinternal order by c.relname, t.tgname`,
  functions: `
    select p.proname, p.prokind, pg_get_functiondef(p.oid) as definition, p.provolatile, p.proconfig
      from pg_proc p where p.pronamespace = $1::regnamespace order by p.proname`,
  types: `
    select t.typname, t.typtype, t.typcategory from pg_type t
     where t.typnamespace = $1::regnamespace order by t.typname`,
  comments: `
    select c.relname, d.objsubid, d.description
      from pg_description d join pg_class c on c.oid = d.objoid
     where d.classoid = 'pg_class'::regclass and c.relnamespace = $1::regnamespace
     order by c.relname, d.objsubid`,
  policies: `
    select c.relname, p.polname from pg_policy p join pg_class c on c.oid = p.polrelid
     where c.relnamespace = $1::regnamespace order by 1, 2`,
  rules: `
    select c.relname, r.rulename from pg_rewrite r join pg_class c on c.oid = r.ev_class
     where c.relnamespace = $1::regnamespace order by 1, 2`,
};

type Catalog = Record<string, unknown>;

async function catalogOf(db: pg.ClientBase, schema: string): Promise<Catalog> {
  const catalog: Catalog = {};
  for (const [part, query] of Object.entries(CATALOG)) {
    const { rows } = await db.query(query, [schema]);
    catalog[part] = JSON.parse(JSON.stringify(rows).replaceAll(schema, '<schema>')) as unknown;
  }
  // The rows of every table: the migrations' bookkeeping (its times aside), and any other.
  const tables = await db.query<{ relname: string }>(
    "select relname from pg_class where relnamespace = $1::regnamespace and relkind = 'r' order by relname",
    [schema],
  );
  const rows: Record<string, unknown[]> = {};
  for (const { relname } of tables.rows) {
    const table = `${db.escapeIdentifier(schema)}.${db.escapeIdentifier(relname)}`;
    const { rows: held } = await db.query<Record<string, unknown>>(`select * from ${table} order by 1`);
    rows[relname] = held.map(({ timestamp: _timestamp, ...row }) => row);
  }
  catalog.rows = rows;
  return catalog;
}

const postgres = dialectName === 'postgres' ? TEST_DATABASE_URL : undefined;

describe.runIf(postgres !== undefined)('a test app’s PostgreSQL schema', () => {
  const url = postgres!;
  let db: pg.Client;
  let fresh: string;
  let freshCatalog: Catalog;

  const connect = async () => {
    if (db) return;
    db = new pg.Client({ connectionString: url });
    await db.connect();
    fresh = newSchemaName();
    await migrateSchema(url, fresh);
    freshCatalog = await catalogOf(db, fresh);
  };
  afterAll(async () => {
    await db?.end();
  });
  const migrationsIn = async (schema: string) =>
    (
      await db.query<{ name: string; timestamp: string }>(
        `select name, "timestamp" from ${db.escapeIdentifier(schema)}.kysely_migration order by name`,
      )
    ).rows;

  it('is a copy of the run’s template, to which the app’s own migrator adds nothing', async () => {
    await connect();
    expect(pgTemplate).toBeDefined();
    const t = await app();
    expect(await upgradeDatabase(t.deps.database, t.storage.schema)).toEqual([]);
    const copied = await migrationsIn(t.storage.schema!);
    expect(copied.length).toBeGreaterThan(0);
    // The same times: the migrations ran into the template, not into this schema.
    expect(copied).toEqual(await migrationsIn(pgTemplate!.schema));
  });

  it('has the catalog of a schema the migrations made, to the last column default', async () => {
    await connect();
    const t = await app();
    const catalog = await catalogOf(db, t.storage.schema!);
    // The comparison has something to compare: the whole data model is there.
    expect(freshCatalog.sequences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ sequencename: 'pages_id_seq', owned_by: 'pages.id' }),
      ]),
    );
    expect(JSON.stringify(freshCatalog.indexes)).toContain('search_entries_document_idx');
    expect(JSON.stringify(freshCatalog.constraints)).toContain('FOREIGN KEY');
    expect(catalog).toEqual(freshCatalog);
  });

  it('tells a copy that differs in any one detail', async () => {
    await connect();
    const t = await app();
    const schema = t.storage.schema!;
    const changes = [
      'alter table pages alter column title drop not null',
      "alter table projects alter column plan set default 'other'",
      'alter sequence pages_id_seq increment by 2',
      'drop index pages_listing_idx',
      'alter table versions drop constraint versions_project_id_fkey',
      'alter table projects disable trigger projects_variables_stamp',
      "insert into kysely_migration (name, timestamp) values ('9999-extra', 'now')",
      'create index extra_idx on users (email)',
    ];
    for (const change of changes) {
      await db.query('begin');
      try {
        await db.query(`set local search_path to ${db.escapeIdentifier(schema)}`);
        await db.query(change);
        expect(await catalogOf(db, schema), change).not.toEqual(freshCatalog);
      } finally {
        await db.query('rollback');
      }
    }
    expect(await catalogOf(db, schema)).toEqual(freshCatalog);
  });

  it('is migrated from empty by the app itself when asked', async () => {
    await connect();
    const t = await app(true);
    const own = await migrationsIn(t.storage.schema!);
    const original = await migrationsIn(pgTemplate!.schema);
    expect(own.map((m) => m.name)).toEqual(original.map((m) => m.name));
    expect(own[0]!.timestamp > original.at(-1)!.timestamp).toBe(true);
    expect(await catalogOf(db, t.storage.schema!)).toEqual(freshCatalog);
  });
});

/** A SQLite database's schema (every table, index and trigger as written) and its rows. */
function sqliteCatalog(file: string): Record<string, unknown> {
  const db = new SQLite(file, { readonly: true });
  try {
    const objects = db
      .prepare<[], { type: string; name: string; tbl_name: string; sql: string | null }>(
        'select type, name, tbl_name, sql from sqlite_schema order by name',
      )
      .all();
    const rows: Record<string, unknown[]> = {};
    for (const { name } of objects.filter((o) => o.type === 'table')) {
      const quoted = `"${name.replaceAll('"', '""')}"`;
      rows[name] = db
        .prepare<[], Record<string, unknown>>(`select * from ${quoted}`)
        .all()
        .map(({ timestamp: _timestamp, ...row }) => JSON.stringify(row))
        .sort();
    }
    const pragmas = ['user_version', 'application_id', 'page_size', 'auto_vacuum', 'encoding'];
    return {
      objects,
      rows,
      pragmas: Object.fromEntries(pragmas.map((p) => [p, db.pragma(p, { simple: true })])),
    };
  } finally {
    db.close();
  }
}

describe.runIf(dialectName === 'sqlite')('a test app’s SQLite file', () => {
  let dir: string | undefined;
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const fileOf = (t: TestApp) => t.storage.databaseUrl.slice('sqlite:'.length);
  const migrationsIn = (file: string) => {
    const db = new SQLite(file, { readonly: true });
    try {
      return db
        .prepare<[], { name: string; timestamp: string }>(
          'select name, timestamp from kysely_migration order by name',
        )
        .all();
    } finally {
      db.close();
    }
  };

  it('has the schema and rows of a file the migrations made, and is a copy of the template', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-template-test-'));
    const fresh = path.join(dir, 'fresh.db');
    await migrateSqliteFile(fresh);
    expect(sqliteTemplate).toBeDefined();
    const t = await app();
    expect(await upgradeDatabase(t.deps.database)).toEqual([]);
    const catalog = sqliteCatalog(fileOf(t));
    expect(JSON.stringify(catalog.objects)).toContain('search_fts');
    expect(JSON.stringify(catalog.objects)).toContain('trigger');
    expect(catalog).toEqual(sqliteCatalog(fresh));
    // The same times: the migrations ran into the template, not into this file.
    expect(migrationsIn(fileOf(t))).toEqual(migrationsIn(sqliteTemplate!.file));
  });

  it('is migrated from empty by the app itself when asked', async () => {
    const t = await app(true);
    expect(sqliteCatalog(fileOf(t))).toEqual(sqliteCatalog(sqliteTemplate!.file));
    const own = migrationsIn(fileOf(t));
    const original = migrationsIn(sqliteTemplate!.file);
    expect(own.map((m) => m.name)).toEqual(original.map((m) => m.name));
    expect(own[0]!.timestamp > original.at(-1)!.timestamp).toBe(true);
  });
});
