import type { Insertable, Selectable, Updateable } from 'kysely';
import { toCount, type Executor } from '../../db/executor.ts';
import type { ProjectsTable } from '../../db/schema.ts';
import { siteHostOf } from '../../shared/site-host.ts';

export type ProjectRow = Selectable<ProjectsTable>;

/** Something that belongs to exactly one project, named by its id. */
export type ProjectOwned =
  | { projectId: number }
  | { versionId: number }
  | { documentationId: number }
  | { pageId: number }
  | { keyId: number };

export const projectsRepository = {
  findById(db: Executor, id: number): Promise<ProjectRow | undefined> {
    return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The project that owns a row, deleted or not; undefined when there is no such row. */
  async ownerOf(db: Executor, owned: ProjectOwned): Promise<number | undefined> {
    let row: { project_id: number } | undefined;
    if ('projectId' in owned) {
      row = await db
        .selectFrom('projects')
        .select('id as project_id')
        .where('id', '=', owned.projectId)
        .executeTakeFirst();
    } else if ('versionId' in owned) {
      row = await db
        .selectFrom('versions')
        .select('project_id')
        .where('id', '=', owned.versionId)
        .executeTakeFirst();
    } else if ('documentationId' in owned) {
      row = await db
        .selectFrom('documentation as d')
        .innerJoin('versions as v', 'v.id', 'd.version_id')
        .select('v.project_id')
        .where('d.id', '=', owned.documentationId)
        .executeTakeFirst();
    } else if ('pageId' in owned) {
      row = await db
        .selectFrom('pages as p')
        .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
        .innerJoin('versions as v', 'v.id', 'd.version_id')
        .select('v.project_id')
        .where('p.id', '=', owned.pageId)
        .executeTakeFirst();
    } else {
      row = await db
        .selectFrom('api_keys')
        .select('project_id')
        .where('id', '=', owned.keyId)
        .executeTakeFirst();
    }
    return row?.project_id;
  },

  /** Every project, oldest first (the CLI's list; a deployment holds a handful, not thousands). */
  list(db: Executor): Promise<ProjectRow[]> {
    return db.selectFrom('projects').selectAll().orderBy('id').execute();
  },

  async count(db: Executor): Promise<number> {
    const row = await db
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return toCount(row.n);
  },

  insert(db: Executor, values: Insertable<ProjectsTable>): Promise<ProjectRow> {
    return db
      .insertInto('projects')
      .values({ ...values, site_host: siteHostOf(values.host) })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  update(db: Executor, id: number, values: Updateable<ProjectsTable>): Promise<ProjectRow> {
    return db
      .updateTable('projects')
      .set(values.host === undefined ? values : { ...values, site_host: siteHostOf(values.host) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },
};
