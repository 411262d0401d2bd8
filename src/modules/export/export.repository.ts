import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type {
  ApiReferencesTable,
  CategoriesTable,
  DocumentationTable,
  VersionsTable,
} from '../../db/schema.ts';
import {
  liveReferencesOfVersion,
  liveSection,
  liveSectionsOfVersion,
  livePagesOfVersion,
  liveVersions,
} from '../../db/visibility.ts';

export type ExportVersion = Pick<Selectable<VersionsTable>, 'id' | 'name' | 'slug' | 'published'>;
export type ExportSection = Pick<Selectable<DocumentationTable>, 'id' | 'title' | 'slug' | 'published'>;
export type ExportCategory = Pick<
  Selectable<CategoriesTable>,
  'id' | 'documentation_id' | 'title' | 'position'
>;
export type ExportReference = Pick<
  Selectable<ApiReferencesTable>,
  'id' | 'title' | 'slug' | 'published' | 'format_published' | 'format_draft'
>;

/** A page without its contents, which are read a few at a time as the archive is written. */
export interface ExportPage {
  id: number;
  documentation_id: number;
  category_id: number | null;
  parent_page_id: number | null;
  title: string;
  slug: string;
  listed: number;
  position: number;
}

export interface ExportContents {
  id: number;
  content_draft: string | null;
  content_published: string | null;
}

/** The reads of an export, all made in one snapshot (DatabaseHandle.snapshot); live rows only. */
export const exportRepository = {
  async variables(db: Executor, projectId: number): Promise<string> {
    const row = await db
      .selectFrom('projects')
      .select('variables')
      .where('id', '=', projectId)
      .executeTakeFirst();
    return row?.variables ?? '{}';
  },

  versions(db: Executor, projectId: number): Promise<ExportVersion[]> {
    return liveVersions(db)
      .select(['v.id', 'v.name', 'v.slug', 'v.published'])
      .where('v.project_id', '=', projectId)
      .orderBy('v.ordr')
      .orderBy('v.id')
      .execute();
  },

  sections(db: Executor, versionId: number): Promise<ExportSection[]> {
    return liveSectionsOfVersion(db, versionId)
      .select(['d.id', 'd.title', 'd.slug', 'd.published'])
      .orderBy('d.ordr')
      .orderBy('d.id')
      .execute();
  },

  categories(db: Executor, versionId: number): Promise<ExportCategory[]> {
    return db
      .selectFrom('categories as c')
      .innerJoin('documentation as d', 'd.id', 'c.documentation_id')
      .select(['c.id', 'c.documentation_id', 'c.title', 'c.position'])
      .where('d.version_id', '=', versionId)
      .$call(liveSection)
      .orderBy('c.position')
      .orderBy('c.id')
      .execute();
  },

  pages(db: Executor, versionId: number): Promise<ExportPage[]> {
    return livePagesOfVersion(db, versionId)
      .select([
        'p.id',
        'p.documentation_id',
        'p.category_id',
        'p.parent_page_id',
        'p.title',
        'p.slug',
        'p.listed',
        'p.position',
      ])
      .orderBy('p.position')
      .orderBy('p.id')
      .execute();
  },

  contents(db: Executor, ids: readonly number[]): Promise<ExportContents[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('pages')
      .select(['id', 'content_draft', 'content_published'])
      .where('id', 'in', ids)
      .execute();
  },

  references(db: Executor, versionId: number): Promise<ExportReference[]> {
    return liveReferencesOfVersion(db, versionId)
      .select(['r.id', 'r.title', 'r.slug', 'r.published', 'r.format_published', 'r.format_draft'])
      .orderBy('r.ordr')
      .orderBy('r.id')
      .execute();
  },

  async definition(db: Executor, id: number, draft: boolean): Promise<string | null> {
    const row = await db
      .selectFrom('api_references')
      .select(draft ? 'definition_draft as text' : 'definition_published as text')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.text ?? null;
  },
};
