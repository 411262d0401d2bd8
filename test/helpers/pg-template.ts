import pg from 'pg';

/**
 * What a test app's PostgreSQL schema is made from: the migrator runs once per test run, into a
 * template schema (test/helpers/global-setup.ts), and every app's schema is that template's copy,
 * made by one multi-statement script in one transaction and one round trip, where the migrations
 * take ten transactions and a round trip per statement (and build the search index twice).
 * The script is read from the catalog of the migrated template, not written by hand, so a new
 * migration needs nothing here; test/test-template.test.ts compares a copy's catalog with that of a
 * freshly migrated schema and fails on any difference.
 */
export interface SchemaTemplate {
  /** the migrated schema the copies are made from; it lives until the run's end */
  schema: string;
  /** DDL with unqualified names, run with the new schema first on the search path */
  script: string;
}

/**
 * Objects the script does not reproduce. Migrations create none today; one that does makes every
 * copy fail loudly here rather than differ quietly.
 */
const UNSUPPORTED = `
  select 'relation ' || c.relname || ' of kind ' || c.relkind::text as what
    from pg_catalog.pg_class c
   where c.relnamespace = $1::regnamespace and c.relkind not in ('r', 'S', 'i')
  union all
  select 'non-default storage of ' || c.relname
    from pg_catalog.pg_class c
   where c.relnamespace = $1::regnamespace
     and (c.relpersistence <> 'p' or c.reloptions is not null or c.reltablespace <> 0)
  union all
  select 'identity column ' || c.relname || '.' || a.attname
    from pg_catalog.pg_attribute a join pg_catalog.pg_class c on c.oid = a.attrelid
   where c.relnamespace = $1::regnamespace and a.attidentity <> '' and not a.attisdropped
  union all
  select 'aggregate or window function ' || p.proname
    from pg_catalog.pg_proc p
   where p.pronamespace = $1::regnamespace and p.prokind not in ('f', 'p')
  union all
  select 'type ' || t.typname from pg_catalog.pg_type t
   where t.typnamespace = $1::regnamespace and t.typrelid = 0 and t.typcategory <> 'A'
  union all
  select 'disabled trigger ' || t.tgname
    from pg_catalog.pg_trigger t join pg_catalog.pg_class c on c.oid = t.tgrelid
   where c.relnamespace = $1::regnamespace and not t.tgisinternal and t.tgenabled <> 'O'
  union all
  select 'rule ' || r.rulename
    from pg_catalog.pg_rewrite r join pg_catalog.pg_class c on c.oid = r.ev_class
   where c.relnamespace = $1::regnamespace
  union all
  select 'policy ' || p.polname
    from pg_catalog.pg_policy p join pg_catalog.pg_class c on c.oid = p.polrelid
   where c.relnamespace = $1::regnamespace
  union all
  select 'statistics ' || s.stxname from pg_catalog.pg_statistic_ext s where s.stxnamespace = $1::regnamespace
  union all
  select 'comment on ' || c.relname
    from pg_catalog.pg_description d join pg_catalog.pg_class c on c.oid = d.objoid
   where d.classoid = 'pg_catalog.pg_class'::regclass and c.relnamespace = $1::regnamespace
  union all
  select 'collation of ' || c.relname || '.' || a.attname
    from pg_catalog.pg_attribute a
    join pg_catalog.pg_class c on c.oid = a.attrelid
    join pg_catalog.pg_type t on t.oid = a.atttypid
   where c.relnamespace = $1::regnamespace and c.relkind = 'r' and a.attnum > 0
     and not a.attisdropped and a.attcollation <> t.typcollation`;

/** The schema's sequences, as created: serial columns' ones and any other. */
const SEQUENCES = `
  select pg_catalog.format('create sequence %I as %s increment by %s minvalue %s maxvalue %s start with %s cache %s %s',
           c.relname, pg_catalog.format_type(s.seqtypid, null), s.seqincrement, s.seqmin, s.seqmax,
           s.seqstart, s.seqcache, case when s.seqcycle then 'cycle' else 'no cycle' end) as sql
    from pg_catalog.pg_sequence s join pg_catalog.pg_class c on c.oid = s.seqrelid
   where c.relnamespace = $1::regnamespace
   order by c.relname`;

/**
 * The tables with their columns (types, defaults, generated expressions, NOT NULL) and their
 * primary key, unique, check and exclusion constraints. Expressions are printed with the template
 * first on the search path, so they name its objects unqualified.
 */
const TABLES = `
  select pg_catalog.format('create table %I (%s)', c.relname, pg_catalog.concat_ws(', ',
           (select pg_catalog.string_agg(pg_catalog.format('%I %s', a.attname,
                     pg_catalog.format_type(a.atttypid, a.atttypmod))
                   || case when a.attgenerated = 's'
                        then pg_catalog.format(' generated always as (%s) stored', pg_catalog.pg_get_expr(d.adbin, d.adrelid))
                        when d.adbin is not null
                        then ' default ' || pg_catalog.pg_get_expr(d.adbin, d.adrelid)
                        else '' end
                   || case when a.attnotnull then ' not null' else '' end,
                   ', ' order by a.attnum)
              from pg_catalog.pg_attribute a
              left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
             where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped),
           (select pg_catalog.string_agg(pg_catalog.format('constraint %I %s', k.conname,
                     pg_catalog.pg_get_constraintdef(k.oid)), ', ' order by k.conname)
              from pg_catalog.pg_constraint k
             where k.conrelid = c.oid and k.contype in ('p', 'u', 'c', 'x')))) as sql
    from pg_catalog.pg_class c
   where c.relnamespace = $1::regnamespace and c.relkind = 'r'
   order by c.relname`;

/** Which column owns which sequence (a serial column's), as ALTER SEQUENCE … OWNED BY. */
const OWNERSHIPS = `
  select pg_catalog.format('alter sequence %I owned by %I.%I', s.relname, t.relname, a.attname) as sql
    from pg_catalog.pg_depend d
    join pg_catalog.pg_class s on s.oid = d.objid and s.relkind = 'S'
    join pg_catalog.pg_class t on t.oid = d.refobjid
    join pg_catalog.pg_attribute a on a.attrelid = t.oid and a.attnum = d.refobjsubid
   where d.classid = 'pg_catalog.pg_class'::regclass and d.refclassid = 'pg_catalog.pg_class'::regclass
     and d.deptype = 'a' and s.relnamespace = $1::regnamespace
   order by s.relname`;

/** Foreign keys, once every table (and the unique index each one references) exists. */
const FOREIGN_KEYS = `
  select pg_catalog.format('alter table %I add constraint %I %s', c.relname, k.conname,
           pg_catalog.pg_get_constraintdef(k.oid)) as sql
    from pg_catalog.pg_constraint k join pg_catalog.pg_class c on c.oid = k.conrelid
   where c.relnamespace = $1::regnamespace and k.contype = 'f'
   order by c.relname, k.conname`;

/**
 * Indexes no constraint made. pg_get_indexdef names the table schema-qualified whatever the search
 * path: the definition is taken from its USING clause on, after an unqualified ON.
 */
const INDEXES = `
  select pg_catalog.format('create %sindex %I on %I %s', case when i.indisunique then 'unique ' else '' end,
           x.relname, c.relname,
           pg_catalog.substr(pg_catalog.pg_get_indexdef(i.indexrelid),
             pg_catalog.strpos(pg_catalog.pg_get_indexdef(i.indexrelid), ' USING ') + 1)) as sql
    from pg_catalog.pg_index i
    join pg_catalog.pg_class x on x.oid = i.indexrelid
    join pg_catalog.pg_class c on c.oid = i.indrelid
   where c.relnamespace = $1::regnamespace
     and not exists (select 1 from pg_catalog.pg_constraint k
                      where k.conindid = i.indexrelid and k.conrelid = i.indrelid and k.contype in ('p', 'u', 'x'))
   order by x.relname`;

/**
 * Functions and procedures (a trigger's). pg_get_functiondef names the function schema-qualified
 * whatever the search path: that prefix is replaced by the bare name (a null tells it was not found).
 * Their bodies name tables unqualified already, resolved on the search path when they run.
 */
const FUNCTIONS = `
  select case when pg_catalog.starts_with(f.def, f.prefix)
           then pg_catalog.format('create %s %I', f.kind, f.proname) || pg_catalog.substr(f.def, pg_catalog.length(f.prefix) + 1)
         end as sql
    from (select p.proname, pg_catalog.pg_get_functiondef(p.oid) as def,
                 case p.prokind when 'p' then 'procedure' else 'function' end as kind,
                 pg_catalog.format('CREATE OR REPLACE %s %I.%I',
                   case p.prokind when 'p' then 'PROCEDURE' else 'FUNCTION' end, n.nspname, p.proname) as prefix
            from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
           where p.pronamespace = $1::regnamespace) f
   order by f.proname`;

/**
 * Triggers, last: copied rows fire none. pg_get_triggerdef names the table schema-qualified whatever
 * the search path (the function it runs, unqualified when it is on the path): ON names it bare here.
 */
const TRIGGERS = `
  select case when pg_catalog.strpos(g.def, g.qualified) > 0
           then pg_catalog.replace(g.def, g.qualified, pg_catalog.format(' ON %I ', g.relname))
         end as sql
    from (select c.relname, t.tgname, pg_catalog.pg_get_triggerdef(t.oid) as def,
                 pg_catalog.format(' ON %I.%I ', n.nspname, c.relname) as qualified
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where c.relnamespace = $1::regnamespace and not t.tgisinternal) g
   order by g.relname, g.tgname`;

/**
 * Copying a table's rows from the template, generated columns left to be computed again. Run for the
 * tables that hold rows: the migrations' bookkeeping, and whatever a migration's data step wrote.
 */
const ROWS = `
  select pg_catalog.format('insert into %I (%s) select %s from %I.%I', c.relname, cs.cols, cs.cols,
           n.nspname, c.relname) as sql
    from pg_catalog.pg_class c
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    cross join lateral (select pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' order by a.attnum) as cols
                          from pg_catalog.pg_attribute a
                         where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = '') cs
   where c.oid = $1::regclass`;

/** Sequences the template has advanced continue from where it left them in every copy. */
const SEQUENCE_STATES = `
  select pg_catalog.format('select pg_catalog.setval(%L, last_value, is_called) from %I.%I',
           pg_catalog.quote_ident(s.sequencename), s.schemaname, s.sequencename) as sql
    from pg_catalog.pg_sequences s
   where s.schemaname = $1 and s.last_value is not null
   order by s.sequencename`;

/**
 * Reads the migrated `schema` into the script that makes a copy of it, in pg_dump's order: tables,
 * their rows (before any foreign key or trigger could object or fire), then the functions, indexes,
 * foreign keys and triggers.
 */
export async function captureTemplate(client: pg.ClientBase, schema: string): Promise<SchemaTemplate> {
  const unsupported = await client.query<{ what: string }>(UNSUPPORTED, [schema]);
  if (unsupported.rows.length > 0) {
    const list = unsupported.rows.map((r) => r.what).join(', ');
    throw new Error(`The test schema template cannot reproduce: ${list}`);
  }
  const parts: string[] = [];
  const add = async (query: string, parameters: unknown[] = [schema]): Promise<void> => {
    const { rows } = await client.query<{ sql: string | null }>(query, parameters);
    for (const row of rows) {
      if (row.sql === null) throw new Error(`The test schema template: a definition of an unexpected form`);
      parts.push(row.sql);
    }
  };
  await client.query('begin');
  try {
    // Expressions and constraint definitions name the template's own objects unqualified.
    await client.query(`set local search_path to ${client.escapeIdentifier(schema)}`);
    await add(SEQUENCES);
    await add(TABLES);
    await add(OWNERSHIPS);
    const tables = await client.query<{ oid: number; relname: string }>(
      "select oid, relname from pg_catalog.pg_class where relnamespace = $1::regnamespace and relkind = 'r' order by relname",
      [schema],
    );
    for (const table of tables.rows) {
      const name = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(table.relname)}`;
      const held = await client.query(`select 1 from ${name} limit 1`);
      if (held.rowCount !== 0) await add(ROWS, [table.oid]);
    }
    await add(SEQUENCE_STATES);
    await add(FUNCTIONS);
    await add(INDEXES);
    await add(FOREIGN_KEYS);
    await add(TRIGGERS);
    await client.query('commit');
    return { schema, script: parts.join(';\n') };
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

/**
 * Creates `schema` as a copy of the template, in one transaction and one round trip. The commit does
 * not wait for the WAL to reach the disk: a test schema need not survive a crash of the server.
 */
export async function copyTemplate(
  client: pg.ClientBase,
  template: SchemaTemplate,
  schema: string,
): Promise<void> {
  const id = client.escapeIdentifier(schema);
  const script = [
    'begin',
    'set local synchronous_commit = off',
    `create schema ${id}`,
    `set local search_path to ${id}`,
    template.script,
    'commit',
  ].join(';\n');
  try {
    await client.query(script);
  } catch (error) {
    // A statement of the script failed: the ones after it were skipped, the transaction is open.
    await client.query('rollback');
    throw error;
  }
}
