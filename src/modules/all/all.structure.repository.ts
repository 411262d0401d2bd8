import type { Executor } from '../../db/executor.ts';

/** The rows of one version's structure: live sections, their live pages, live references. */
export const structureRepository = {
  sections(db: Executor, versionId: number) {
    return db
      .selectFrom('documentation')
      .select(['id', 'title', 'slug', 'published', 'ordr'])
      .where('version_id', '=', versionId)
      .where('deleted_at', 'is', null)
      .orderBy('ordr')
      .orderBy('id')
      .execute();
  },

  pages(db: Executor, versionId: number) {
    return db
      .selectFrom('pages as p')
      .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
      .select(['p.id', 'p.documentation_id', 'p.title', 'p.slug', 'p.listed'])
      .select((eb) => eb('p.content_draft', 'is not', null).as('has_draft'))
      .where('d.version_id', '=', versionId)
      .where('d.deleted_at', 'is', null)
      .where('p.deleted_at', 'is', null)
      .orderBy('p.documentation_id')
      .orderBy('p.position')
      .orderBy('p.id')
      .execute();
  },

  references(db: Executor, versionId: number) {
    return db
      .selectFrom('api_references')
      .select(['id', 'title', 'published'])
      .select((eb) => eb('definition_draft', 'is not', null).as('has_draft'))
      .where('version_id', '=', versionId)
      .where('deleted_at', 'is', null)
      .orderBy('ordr')
      .orderBy('id')
      .execute();
  },
};
