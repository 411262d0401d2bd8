import type { Executor } from '../../db/executor.ts';
import type { DefinitionFormat } from '../../openapi/definition.parser.ts';

export interface LinkPageRow {
  id: number;
  title: string;
  slug: string;
  listed: number;
  section_slug: string;
  section_title: string;
  section_published: number;
}

export interface LinkContentRow {
  id: number;
  content_draft: string | null;
  content_published: string | null;
}

export interface LinkReferenceRow {
  id: number;
  title: string;
  slug: string;
  published: number;
  has_published: number;
}

export interface DefinitionRow {
  definition_published: string | null;
  format_published: DefinitionFormat | null;
  definition_draft: string | null;
  format_draft: DefinitionFormat | null;
}

/** The reads of a broken-links report, all made in one snapshot; live rows only. */
export const linksRepository = {
  async variables(db: Executor, projectId: number): Promise<string> {
    const row = await db
      .selectFrom('projects')
      .select('variables')
      .where('id', '=', projectId)
      .executeTakeFirst();
    return row?.variables ?? '{}';
  },

  /** The project's live versions in order: the first published one is the default version. */
  versions(db: Executor, projectId: number) {
    return db
      .selectFrom('versions')
      .select(['id', 'slug', 'published'])
      .where('project_id', '=', projectId)
      .where('deleted_at', 'is', null)
      .orderBy('ordr')
      .orderBy('id')
      .execute();
  },

  sections(db: Executor, versionId: number) {
    return db
      .selectFrom('documentation')
      .select(['slug', 'title', 'published'])
      .where('version_id', '=', versionId)
      .where('deleted_at', 'is', null)
      .execute();
  },

  /**
   * Live pages of live sections, without their contents, in no order: asked for in id order, SQLite
   * walks every live page of the database for it (reading their contents, stored in the same rows)
   * instead of this version's from the covering pages_listing_idx.
   */
  pages(db: Executor, versionId: number): Promise<LinkPageRow[]> {
    return db
      .selectFrom('pages as p')
      .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
      .select([
        'p.id',
        'p.title',
        'p.slug',
        'p.listed',
        'd.slug as section_slug',
        'd.title as section_title',
        'd.published as section_published',
      ])
      .where('d.version_id', '=', versionId)
      .where('d.deleted_at', 'is', null)
      .where('p.deleted_at', 'is', null)
      .execute();
  },

  /** Contents of pages the caller listed (see pages()), read a batch at a time. */
  contents(db: Executor, ids: readonly number[]): Promise<LinkContentRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('pages')
      .select(['id', 'content_draft', 'content_published'])
      .where('id', 'in', ids)
      .execute();
  },

  /** Live references; `has_published`: a published definition readers can open. */
  references(db: Executor, versionId: number): Promise<LinkReferenceRow[]> {
    return db
      .selectFrom('api_references')
      .select((eb) => [
        'id',
        'title',
        'slug',
        'published',
        eb.case().when('definition_published', 'is not', null).then(1).else(0).end().as('has_published'),
      ])
      .where('version_id', '=', versionId)
      .where('deleted_at', 'is', null)
      .execute();
  },

  definitions(db: Executor, referenceId: number): Promise<DefinitionRow | undefined> {
    return db
      .selectFrom('api_references')
      .select(['definition_published', 'format_published', 'definition_draft', 'format_draft'])
      .where('id', '=', referenceId)
      .executeTakeFirst();
  },
};
