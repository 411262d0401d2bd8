import type { Executor } from '../../db/executor.ts';
import { livePagesOfVersion, liveReferencesOfVersion, liveSectionsOfVersion } from '../../db/visibility.ts';

/** The rows of one version's structure: live sections, their live pages, live references. */
export const structureRepository = {
  sections(db: Executor, versionId: number) {
    return liveSectionsOfVersion(db, versionId)
      .select(['d.id', 'd.title', 'd.slug', 'd.published', 'd.ordr'])
      .orderBy('d.ordr')
      .orderBy('d.id')
      .execute();
  },

  pages(db: Executor, versionId: number) {
    return livePagesOfVersion(db, versionId)
      .select(['p.id', 'p.documentation_id', 'p.title', 'p.slug', 'p.listed'])
      .select((eb) => eb('p.content_draft', 'is not', null).as('has_draft'))
      .orderBy('p.documentation_id')
      .orderBy('p.position')
      .orderBy('p.id')
      .execute();
  },

  references(db: Executor, versionId: number) {
    return liveReferencesOfVersion(db, versionId)
      .select(['r.id', 'r.title', 'r.published'])
      .select((eb) => eb('r.definition_draft', 'is not', null).as('has_draft'))
      .orderBy('r.ordr')
      .orderBy('r.id')
      .execute();
  },
};
