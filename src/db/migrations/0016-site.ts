import { sql } from 'kysely';
import { siteHostOf } from '../../shared/site-host.ts';
import type { Migration } from './helpers.ts';
import { navigationStamps } from './0016-site-navigation.ts';

type AnyDb = Parameters<Migration['up']>[0]['db'];

/**
 * The reader site (docs/decisions/0027-reader-site.md).
 * - `projects.site_host`: the host (and port, when the URL names one) of the project's `host` URL,
 *   lower-cased, so that a request's `Host` finds its projects by an index; written with `host`.
 * - The theme and redirect settings: `site_logo` (URL), `site_color` (`#rrggbb`), `site_css` (the
 *   stylesheet's text), `site_redirects` (the rules file's text).
 * - The change stamp (0010, 0015) also moves on what only the site shows: categories (navigation
 *   groups), changelogs (their titles and slugs), sections and versions made (a new published version
 *   appears in the switcher), and the project's name, access, hosting and site settings.
 * - `navigation_stamps`: a counter per version that moves only with its navigation
 *   (0016-site-navigation.ts).
 */
export const site: Migration = {
  name: '0016-site',
  async up({ db, dialect }) {
    for (const column of ['site_host', 'site_logo', 'site_color', 'site_css', 'site_redirects']) {
      await db.schema.alterTable('projects').addColumn(column, 'text').execute();
    }
    await db.schema.createIndex('projects_site_host_idx').on('projects').column('site_host').execute();
    const rows = await db
      .selectFrom('projects')
      .select(['id', 'host'])
      .where('host', 'is not', null)
      .execute();
    for (const row of rows) {
      await db
        .updateTable('projects')
        .set({ site_host: siteHostOf(row.host as string | null) })
        .where('id', '=', row.id)
        .execute();
    }
    if (dialect === 'sqlite') await sqliteTriggers(db);
    else await postgresTriggers(db);
    await navigationStamps(db, dialect);
  },
};

const SITE_COLUMNS = 'name, access, host, base_path, site_logo, site_color, site_css, site_redirects';

/** The tables watched, the events, and how a row names its project. */
const WATCHED: Array<{
  table: string;
  events: Array<'insert' | 'update' | 'delete'>;
  project: (row: string) => string;
}> = [
  {
    table: 'categories',
    events: ['insert', 'update', 'delete'],
    project: (row) =>
      `select v.project_id from documentation d join versions v on v.id = d.version_id where d.id = ${row}.documentation_id`,
  },
  {
    table: 'changelogs',
    events: ['insert', 'update', 'delete'],
    project: (row) => `select p.id as project_id from projects p where p.id = ${row}.project_id`,
  },
  {
    table: 'documentation',
    events: ['insert'],
    project: (row) => `select v.project_id from versions v where v.id = ${row}.version_id`,
  },
  {
    table: 'versions',
    events: ['insert'],
    project: (row) => `select p.id as project_id from projects p where p.id = ${row}.project_id`,
  },
];

async function sqliteTriggers(db: AnyDb): Promise<void> {
  for (const { table, events, project } of WATCHED) {
    for (const event of events) {
      const row = event === 'delete' ? 'old' : 'new';
      const name = sql.id(`${table}_${event}_site_stamp`);
      await sql`
        create trigger if not exists ${name} after ${sql.raw(event)} on ${sql.id(table)} begin
          insert into change_stamps (project_id, stamp) select project_id, 1 from (${sql.raw(project(row))})
          where true on conflict (project_id) do update set stamp = stamp + 1;
        end`.execute(db);
    }
  }
  const changed = SITE_COLUMNS.split(', ')
    .map((c) => `old.${c} is not new.${c}`)
    .join(' or ');
  await sql`
    create trigger if not exists projects_site_stamp after update of ${sql.raw(SITE_COLUMNS)} on projects
    when ${sql.raw(changed)} begin
      insert into change_stamps (project_id, stamp) values (new.id, 1)
      on conflict (project_id) do update set stamp = stamp + 1;
    end`.execute(db);
}

async function postgresTriggers(db: AnyDb): Promise<void> {
  for (const { table, events, project } of WATCHED) {
    const fn = sql.id(`change_stamps_site_${table}`);
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
    const trigger = sql.id(`${table}_site_stamp`);
    await sql`drop trigger if exists ${trigger} on ${sql.id(table)}`.execute(db);
    await sql`
      create constraint trigger ${trigger} after ${sql.raw(events.join(' or '))} on ${sql.id(table)}
      deferrable initially deferred for each row execute function ${fn}()`.execute(db);
  }
  const changed = SITE_COLUMNS.split(', ')
    .map((c) => `old.${c} is distinct from new.${c}`)
    .join(' or ');
  await sql`drop trigger if exists projects_site_stamp on projects`.execute(db);
  await sql`
    create constraint trigger projects_site_stamp after update on projects
    deferrable initially deferred for each row when (${sql.raw(changed)})
    execute function change_stamps_projects()`.execute(db);
}
