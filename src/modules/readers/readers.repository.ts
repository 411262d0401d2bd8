import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ProjectsTable } from '../../db/schema.ts';
import {
  liveReferencesOfVersion,
  liveSectionsOfVersion,
  liveVersions,
  readablePage,
  visiblePages,
  visiblePost,
  visibleVersion,
} from '../../db/visibility.ts';

export type SiteProjectRow = Selectable<ProjectsTable>;

export interface ReaderVersionRow {
  id: number;
  name: string;
  slug: string;
}

export interface ReaderSectionRow {
  id: number;
  title: string;
  slug: string;
}

export interface ReaderCategoryRow {
  id: number;
  documentation_id: number;
  title: string;
  position: number;
}

export interface ReaderPageRow {
  id: number;
  documentation_id: number;
  category_id: number | null;
  parent_page_id: number | null;
  title: string;
  slug: string;
  position: number;
}

export interface ReaderReferenceRow {
  id: number;
  title: string;
  slug: string;
}

export interface ReadablePageRow {
  id: number;
  title: string;
  slug: string;
  listed: number;
  documentation_id: number;
  updated: string;
}

/**
 * What readers can see, for the reader site: every read goes through the visibility fragments of
 * src/db/visibility.ts (decision 0023), the same ones the API's published listing and search use.
 */
export const readersRepository = {
  /** Projects whose `host` names this request host, with their base paths. */
  projectsOnHost(db: Executor, host: string): Promise<Array<{ id: number; base_path: string | null }>> {
    return db.selectFrom('projects').select(['id', 'base_path']).where('site_host', '=', host).execute();
  },

  project(db: Executor, id: number): Promise<SiteProjectRow | undefined> {
    return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** Published versions, in the project's order: the first is the default. */
  versions(db: Executor, projectId: number): Promise<ReaderVersionRow[]> {
    return liveVersions(db)
      .$call(visibleVersion)
      .where('v.project_id', '=', projectId)
      .select(['v.id', 'v.name', 'v.slug'])
      .orderBy('v.ordr')
      .orderBy('v.id')
      .execute();
  },

  /** The version's navigation counter (0 when nothing has moved it), read before its navigation. */
  async navigationStamp(db: Executor, versionId: number): Promise<string> {
    const row = await db
      .selectFrom('navigation_stamps')
      .select('stamp')
      .where('version_id', '=', versionId)
      .executeTakeFirst();
    return String(row?.stamp ?? 0);
  },

  /** Published sections of a version the caller found published, in order. */
  sections(db: Executor, versionId: number): Promise<ReaderSectionRow[]> {
    return liveSectionsOfVersion(db, versionId)
      .where('d.published', '=', 1)
      .select(['d.id', 'd.title', 'd.slug'])
      .orderBy('d.ordr')
      .orderBy('d.id')
      .execute();
  },

  /** The categories of a version's published sections. */
  categories(db: Executor, versionId: number): Promise<ReaderCategoryRow[]> {
    return liveSectionsOfVersion(db, versionId)
      .where('d.published', '=', 1)
      .innerJoin('categories as c', 'c.documentation_id', 'd.id')
      .select(['c.id', 'c.documentation_id', 'c.title', 'c.position'])
      .orderBy('c.position')
      .execute();
  },

  /** Pages readers can see and find in a version: listed, with published contents. */
  pages(db: Executor, versionId: number): Promise<ReaderPageRow[]> {
    return visiblePages(db)
      .where('v.id', '=', versionId)
      .select([
        'p.id',
        'p.documentation_id',
        'p.category_id',
        'p.parent_page_id',
        'p.title',
        'p.slug',
        'p.position',
      ])
      .orderBy('p.position')
      .orderBy('p.id')
      .execute();
  },

  /** A page readers can open at its address (listed or not), by its section's id and its slug. */
  readablePage(db: Executor, sectionId: number, slug: string): Promise<ReadablePageRow | undefined> {
    return db
      .selectFrom('pages as p')
      .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
      .innerJoin('versions as v', 'v.id', 'd.version_id')
      .$call(readablePage)
      .where('p.deleted_at', 'is', null)
      .where('d.id', '=', sectionId)
      .where('p.slug', '=', slug)
      .select(['p.id', 'p.title', 'p.slug', 'p.listed', 'p.documentation_id', 'p.updated'])
      .executeTakeFirst();
  },

  /** When the page's contents were last published: its newest `publish` revision. */
  async lastPublished(db: Executor, pageId: number): Promise<string | null> {
    const row = await db
      .selectFrom('page_history')
      .select((eb) => eb.fn.max('created').as('at'))
      .where('page_id', '=', pageId)
      .where('operation', '=', 'publish')
      .executeTakeFirst();
    return row?.at ?? null;
  },

  /** Published references of a version the caller found published, in order. */
  references(db: Executor, versionId: number): Promise<ReaderReferenceRow[]> {
    return liveReferencesOfVersion(db, versionId)
      .where('r.published', '=', 1)
      .where('r.definition_published', 'is not', null)
      .select(['r.id', 'r.title', 'r.slug'])
      .orderBy('r.ordr')
      .orderBy('r.id')
      .execute();
  },

  /** The project's changelogs that have a published post, by title. */
  changelogs(db: Executor, projectId: number): Promise<Array<{ id: number; title: string; slug: string }>> {
    return db
      .selectFrom('changelogs as c')
      .where('c.project_id', '=', projectId)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('changelog_posts as cp')
            .$call(visiblePost)
            .whereRef('cp.changelog_id', '=', 'c.id')
            .select('cp.id'),
        ),
      )
      .select(['c.id', 'c.title', 'c.slug'])
      .orderBy('c.title')
      .orderBy('c.id')
      .execute();
  },
};
