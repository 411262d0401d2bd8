import type { Executor } from '../../db/executor.ts';
import { livePage, liveSection } from '../../db/visibility.ts';

/** A live page of a version, as far as where its file lies in the Git layout goes. */
export interface PageFileRow {
  id: number;
  parent_page_id: number | null;
  slug: string;
  documentation_slug: string;
}

/** Every live page of the live sections of a version: what Markdoc output's page links need. */
export function versionPageFiles(db: Executor, versionId: number): Promise<PageFileRow[]> {
  return db
    .selectFrom('pages as p')
    .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
    .select(['p.id', 'p.parent_page_id', 'p.slug', 'd.slug as documentation_slug'])
    .where('d.version_id', '=', versionId)
    .$call(livePage)
    .$call(liveSection)
    .orderBy('p.id')
    .execute();
}
