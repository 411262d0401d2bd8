import { sql } from 'kysely';
import type { Migration } from './helpers.ts';

/**
 * A change counter per project (src/db/change-stamps.ts). Caches of page answers compare it, in
 * one indexed point read, to decide whether what they hold is still current, whichever instance made
 * the change. A project without a row has changed nothing since: its stamp is 0.
 *
 * Triggers bump it in the writing transaction itself, on every write to what a page answer is made
 * of: a page (any column: its fields, its contents, its deletion, the titles that [auto$] links show),
 * a section or a version (slugs in the path, deletion), a project's variables. So no code path, and no
 * operator's edit in the database, can change an answer without retiring it (variables are set with
 * `bin/quire project update --variables`, or in the database).
 * New sections and versions hold no page yet: their inserts need none.
 *
 * The triggers belong to the tables they watch: they are written to be made again should this
 * migration run again.
 */
export const changeStamps: Migration = {
  name: '0010-change-stamps',
  async up({ db, dialect }) {
    await db.schema
      .createTable('change_stamps')
      .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
      .addColumn('stamp', 'bigint', (c) => c.notNull())
      .execute();
    if (dialect === 'sqlite') await sqliteTriggers(db);
    else await postgresTriggers(db);
  },
};

type AnyDb = Parameters<Migration['up']>[0]['db'];

/** SQLite: a trigger per row; each bump is an upsert of the project's row. */
async function sqliteTriggers(db: AnyDb): Promise<void> {
  const bump = sql.raw('on conflict (project_id) do update set stamp = stamp + 1');
  const byDocumentation = (row: 'new' | 'old') =>
    sql.raw(`insert into change_stamps (project_id, stamp)
      select v.project_id, 1 from documentation d join versions v on v.id = d.version_id
      where d.id = ${row}.documentation_id`);
  const byVersion = (row: 'new' | 'old') =>
    sql.raw(`insert into change_stamps (project_id, stamp)
      select v.project_id, 1 from versions v where v.id = ${row}.version_id`);
  const byProject = (row: 'new' | 'old', column: 'project_id' | 'id') =>
    sql.raw(`insert into change_stamps (project_id, stamp) select ${row}.${column}, 1 where true`);
  const triggers: Array<[string, ReturnType<typeof sql.raw>]> = [
    ['pages_insert_stamp after insert on pages', byDocumentation('new')],
    ['pages_update_stamp after update on pages', byDocumentation('new')],
    ['pages_delete_stamp after delete on pages', byDocumentation('old')],
    ['documentation_update_stamp after update on documentation', byVersion('new')],
    ['documentation_delete_stamp after delete on documentation', byVersion('old')],
    ['versions_update_stamp after update on versions', byProject('new', 'project_id')],
    ['versions_delete_stamp after delete on versions', byProject('old', 'project_id')],
    [
      'projects_variables_stamp after update of variables on projects when old.variables is not new.variables',
      byProject('new', 'id'),
    ],
  ];
  for (const [head, insert] of triggers) {
    await sql`create trigger if not exists ${sql.raw(head)} begin ${insert} ${bump}; end`.execute(db);
  }
}

/**
 * PostgreSQL: constraint triggers deferred to commit. Each bumps its project's counter at most once per
 * transaction (a transaction-local setting remembers it), and only as the transaction commits, so the
 * counter row is locked for the commit alone: writers of one project do not queue on it for the whole
 * of their transactions, and a transaction holding the row never waits for another lock after taking
 * it, which rules out deadlocks between writers of one project. Rows are looked up when the trigger
 * runs; a row whose project went in the same transaction bumps nothing (its cache goes with it).
 */
async function postgresTriggers(db: AnyDb): Promise<void> {
  await sql`
    create or replace function change_stamps_bump(pid integer) returns void language plpgsql as $$
    begin
      if pid is null or current_setting('quire.stamped_' || pid, true) = '1' then
        return;
      end if;
      insert into change_stamps (project_id, stamp)
        select p.id, 1 from projects p where p.id = pid
        on conflict (project_id) do update set stamp = change_stamps.stamp + 1;
      perform set_config('quire.stamped_' || pid, '1', true);
    end
    $$`.execute(db);
  const functions: Array<[string, string]> = [
    [
      'change_stamps_pages',
      `select v.project_id from documentation d join versions v on v.id = d.version_id
        where d.id = (case when tg_op = 'DELETE' then old.documentation_id else new.documentation_id end)`,
    ],
    [
      'change_stamps_documentation',
      `select v.project_id from versions v
        where v.id = (case when tg_op = 'DELETE' then old.version_id else new.version_id end)`,
    ],
    [
      'change_stamps_versions',
      `select case when tg_op = 'DELETE' then old.project_id else new.project_id end`,
    ],
    ['change_stamps_projects', 'select new.id'],
  ];
  for (const [name, project] of functions) {
    await sql`
      create or replace function ${sql.id(name)}() returns trigger language plpgsql as $$
      begin
        perform change_stamps_bump((${sql.raw(project)}));
        return null;
      end
      $$`.execute(db);
  }
  const triggers: Array<[string, string, string, string]> = [
    ['pages_change_stamp', 'insert or update or delete', 'pages', ''],
    ['documentation_change_stamp', 'update or delete', 'documentation', ''],
    ['versions_change_stamp', 'update or delete', 'versions', ''],
    ['projects_variables_stamp', 'update', 'projects', 'when (old.variables is distinct from new.variables)'],
  ];
  for (const [name, events, table, when] of triggers) {
    // Constraint triggers have no "or replace": made again, they are dropped first.
    await sql`drop trigger if exists ${sql.id(name)} on ${sql.id(table)}`.execute(db);
    await sql`
      create constraint trigger ${sql.id(name)} after ${sql.raw(events)} on ${sql.id(table)}
      deferrable initially deferred for each row ${sql.raw(when)}
      execute function ${sql.id(`change_stamps_${table}`)}()`.execute(db);
  }
}
