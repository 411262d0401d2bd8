import { sql } from 'kysely';
import type { Migration } from './helpers.ts';

type AnyDb = Parameters<Migration['up']>[0]['db'];

/**
 * The project's change stamp (0010) moves on writes to what a search answer is made of too, so that
 * search answers are kept under it (decision 0024). Pages, sections, versions and variables bump it
 * already; a search also finds references' operations and changelog posts, whose entries are derived
 * from these two tables in the writing transaction. The triggers are made as 0010's are: per row on
 * SQLite, deferred to the commit and once per transaction on PostgreSQL (`change_stamps_bump`).
 */
export const searchChangeStamps: Migration = {
  name: '0015-search-change-stamps',
  async up({ db, dialect }) {
    if (dialect === 'sqlite') await sqliteTriggers(db);
    else await postgresTriggers(db);
  },
};

/** The tables watched, and how a row names its project. */
const WATCHED = [
  {
    table: 'api_references',
    project: (row: string) => `select v.project_id from versions v where v.id = ${row}.version_id`,
  },
  {
    table: 'changelog_posts',
    project: (row: string) => `select c.project_id from changelogs c where c.id = ${row}.changelog_id`,
  },
] as const;

async function sqliteTriggers(db: AnyDb): Promise<void> {
  for (const { table, project } of WATCHED) {
    for (const [event, row] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const) {
      const name = sql.id(`${table}_${event}_stamp`);
      await sql`
        create trigger if not exists ${name} after ${sql.raw(event)} on ${sql.id(table)} begin
          insert into change_stamps (project_id, stamp) select project_id, 1 from (${sql.raw(project(row))})
          where true on conflict (project_id) do update set stamp = stamp + 1;
        end`.execute(db);
    }
  }
}

async function postgresTriggers(db: AnyDb): Promise<void> {
  for (const { table, project } of WATCHED) {
    const fn = sql.id(`change_stamps_${table}`);
    await sql`
      create or replace function ${fn}() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          perform change_stamps_bump((${sql.raw(project('old'))}));
        else
          perform change_stamps_bump((${sql.raw(project('new'))}));
        end if;
        return null;
      end
      $$`.execute(db);
    const trigger = sql.id(`${table}_change_stamp`);
    // Constraint triggers have no "or replace": made again, they are dropped first.
    await sql`drop trigger if exists ${trigger} on ${sql.id(table)}`.execute(db);
    await sql`
      create constraint trigger ${trigger} after insert or update or delete on ${sql.id(table)}
      deferrable initially deferred for each row execute function ${fn}()`.execute(db);
  }
}
