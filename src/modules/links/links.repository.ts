import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import {
  livePagesOfVersion,
  liveReferencesOfVersion,
  liveSectionsOfVersion,
  liveVersions,
} from '../../db/visibility.ts';
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
    return liveVersions(db)
      .select(['v.id', 'v.slug', 'v.published'])
      .where('v.project_id', '=', projectId)
      .orderBy('v.ordr')
      .orderBy('v.id')
      .execute();
  },

  sections(db: Executor, versionId: number) {
    return liveSectionsOfVersion(db, versionId).select(['d.slug', 'd.title', 'd.published']).execute();
  },

  /**
   * Live pages of live sections, without their contents, in no order: asked for in id order, SQLite
   * walks every live page of the database for it (reading their contents, stored in the same rows)
   * instead of this version's from the covering pages_listing_idx.
   */
  pages(db: Executor, versionId: number): Promise<LinkPageRow[]> {
    return livePagesOfVersion(db, versionId)
      .select([
        'p.id',
        'p.title',
        'p.slug',
        'p.listed',
        'd.slug as section_slug',
        'd.title as section_title',
        'd.published as section_published',
      ])
      .execute();
  },

  /**
   * How many bytes each page's contents hold, without reading them (octet_length reads the stored
   * length on both databases): what a batch of contents would weigh.
   */
  contentBytes(db: Executor, ids: readonly number[]): Promise<Array<{ id: number; bytes: number }>> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('pages')
      .select([
        'id',
        sql<number>`coalesce(octet_length(content_draft), 0) + coalesce(octet_length(content_published), 0)`.as(
          'bytes',
        ),
      ])
      .where('id', 'in', ids)
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
    return liveReferencesOfVersion(db, versionId)
      .select((eb) => [
        'r.id',
        'r.title',
        'r.slug',
        'r.published',
        eb.case().when('r.definition_published', 'is not', null).then(1).else(0).end().as('has_published'),
      ])
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
