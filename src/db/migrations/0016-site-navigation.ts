import { sql } from 'kysely';
import type { Migration } from './helpers.ts';

type AnyDb = Parameters<Migration['up']>[0]['db'];

/**
 * Part of 0016-site: a counter per version that moves only on writes to what the version's navigation
 * is made of (docs/decisions/0027-reader-site.md). The project's change stamp moves on every write,
 * contents included; the site keeps a version's navigation under this counter too, so a page's new
 * contents do not make the navigation of a version of 10,000 pages be read again.
 *
 * Watched: pages (title, slug, listing, place, parent, category, section, deletion, and whether
 * contents are published), sections, categories, references (title, slug, order, publication,
 * deletion) and the version itself. Made as 0010's triggers are: per row on SQLite, deferred to the
 * commit and once per transaction and version on PostgreSQL, where the project's change stamp is
 * always bumped (locked) before a version's counter, so that writers of one project take the two
 * kinds of rows in one order.
 */
export async function navigationStamps(db: AnyDb, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .createTable('navigation_stamps')
    .ifNotExists()
    .addColumn('version_id', 'integer', (c) => c.primaryKey().references('versions.id').onDelete('cascade'))
    .addColumn('stamp', 'bigint', (c) => c.notNull())
    .execute();
  if (dialect === 'sqlite') await sqliteTriggers(db);
  else await postgresTriggers(db);
}

const PAGE_COLUMNS = [
  'title',
  'slug',
  'listed',
  'position',
  'parent_page_id',
  'category_id',
  'documentation_id',
  'deleted_at',
];
const REFERENCE_COLUMNS = ['title', 'slug', 'ordr', 'published', 'deleted_at'];

/** `old.c is not new.c or …` (SQLite) / `is distinct from` (PostgreSQL), and published contents appearing or going. */
function pageChanged(distinct: string): string {
  return [
    ...PAGE_COLUMNS.map((c) => `old.${c} ${distinct} new.${c}`),
    '(old.content_published is null) <> (new.content_published is null)',
  ].join(' or ');
}

const referenceChanged = (distinct: string) =>
  [
    ...REFERENCE_COLUMNS.map((c) => `old.${c} ${distinct} new.${c}`),
    '(old.definition_published is null) <> (new.definition_published is null)',
  ].join(' or ');

const sectionVersion = (row: string) =>
  `select version_id from documentation where id = ${row}.documentation_id`;

async function sqliteTriggers(db: AnyDb): Promise<void> {
  // Only for a version that is still there: a purge deletes a version before what it held.
  const bump = (versionSelect: string) =>
    `insert into navigation_stamps (version_id, stamp)
     select v.id, 1 from versions v where v.id in (select version_id from (${versionSelect}))
     on conflict (version_id) do update set stamp = stamp + 1;`;
  const triggers: Array<[string, string]> = [
    ['pages_insert_nav_stamp after insert on pages', bump(sectionVersion('new'))],
    ['pages_delete_nav_stamp after delete on pages', bump(sectionVersion('old'))],
    [
      `pages_update_nav_stamp after update on pages when ${pageChanged('is not')}`,
      bump(sectionVersion('new')) + bump(sectionVersion('old')),
    ],
    ['categories_insert_nav_stamp after insert on categories', bump(sectionVersion('new'))],
    ['categories_update_nav_stamp after update on categories', bump(sectionVersion('new'))],
    ['categories_delete_nav_stamp after delete on categories', bump(sectionVersion('old'))],
    [
      'documentation_insert_nav_stamp after insert on documentation',
      bump('select new.version_id as version_id'),
    ],
    [
      'documentation_update_nav_stamp after update on documentation',
      bump('select new.version_id as version_id'),
    ],
    [
      'documentation_delete_nav_stamp after delete on documentation',
      bump('select old.version_id as version_id'),
    ],
    [
      'api_references_insert_nav_stamp after insert on api_references',
      bump('select new.version_id as version_id'),
    ],
    [
      `api_references_update_nav_stamp after update on api_references when ${referenceChanged('is not')}`,
      bump('select new.version_id as version_id'),
    ],
    [
      'api_references_delete_nav_stamp after delete on api_references',
      bump('select old.version_id as version_id'),
    ],
    ['versions_update_nav_stamp after update on versions', bump('select new.id as version_id')],
  ];
  for (const [head, body] of triggers) {
    await sql`create trigger if not exists ${sql.raw(head)} begin ${sql.raw(body)} end`.execute(db);
  }
}

async function postgresTriggers(db: AnyDb): Promise<void> {
  await sql`
    create or replace function navigation_stamps_bump(vid integer) returns void language plpgsql as $$
    begin
      if vid is null or current_setting('quire.nav_stamped_' || vid, true) = '1' then
        return;
      end if;
      -- The project's change stamp first: every transaction takes the project's row before any of
      -- its versions' rows, so two writers of one project never wait for each other in a circle.
      perform change_stamps_bump((select v.project_id from versions v where v.id = vid));
      insert into navigation_stamps (version_id, stamp)
        select v.id, 1 from versions v where v.id = vid
        on conflict (version_id) do update set stamp = navigation_stamps.stamp + 1;
      perform set_config('quire.nav_stamped_' || vid, '1', true);
    end
    $$`.execute(db);
  const byRow = (row: string) => `(select version_id from documentation where id = ${row}.documentation_id)`;
  const functions: Array<[string, string, string]> = [
    ['navigation_stamps_pages', byRow('new'), byRow('old')],
    ['navigation_stamps_categories', byRow('new'), byRow('old')],
    ['navigation_stamps_documentation', 'new.version_id', 'old.version_id'],
    ['navigation_stamps_api_references', 'new.version_id', 'old.version_id'],
    ['navigation_stamps_versions', 'new.id', 'old.id'],
  ];
  for (const [name, fromNew, fromOld] of functions) {
    await sql`
      create or replace function ${sql.id(name)}() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'INSERT' then perform navigation_stamps_bump(${sql.raw(fromOld)}); end if;
        if tg_op <> 'DELETE' then perform navigation_stamps_bump(${sql.raw(fromNew)}); end if;
        return null;
      end
      $$`.execute(db);
  }
  const triggers: Array<[string, string, string, string]> = [
    ['pages_nav_stamp', 'insert or delete', 'pages', ''],
    ['pages_update_nav_stamp', 'update', 'pages', `when (${pageChanged('is distinct from')})`],
    ['categories_nav_stamp', 'insert or update or delete', 'categories', ''],
    ['documentation_nav_stamp', 'insert or update or delete', 'documentation', ''],
    ['api_references_nav_stamp', 'insert or delete', 'api_references', ''],
    [
      'api_references_update_nav_stamp',
      'update',
      'api_references',
      `when (${referenceChanged('is distinct from')})`,
    ],
    ['versions_nav_stamp', 'update', 'versions', ''],
  ];
  for (const [name, events, table, when] of triggers) {
    const fn = `navigation_stamps_${table}`;
    await sql`drop trigger if exists ${sql.id(name)} on ${sql.id(table)}`.execute(db);
    await sql`
      create constraint trigger ${sql.id(name)} after ${sql.raw(events)} on ${sql.id(table)}
      deferrable initially deferred for each row ${sql.raw(when)}
      execute function ${sql.id(fn)}()`.execute(db);
  }
}
