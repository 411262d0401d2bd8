import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { liveReferences, visiblePages, visiblePost, visibleReference } from '../../db/visibility.ts';

export interface SitemapPageRow {
  version: string;
  section: string;
  slug: string;
  /** when its contents were last published (else last changed), stored form */
  lastmod: string;
}

export interface SitemapReferenceRow {
  version: string;
  slug: string;
  updated: string;
}

export interface SitemapPostRow {
  changelog: string;
  slug: string;
  updated: string;
}

/** The start of a page's published contents: enough for its first paragraph, never the whole of a large page. */
export interface PageOpeningRow {
  id: number;
  title: string;
  opening: string;
}

/**
 * What the site's machine files (sitemap.xml, llms.txt) list: every read through the visibility
 * fragments (decision 0023), so they name exactly what readers find in the navigation and search.
 */
export const readersMachineRepository = {
  /** Pages readers find in every published version of the project, in index order. */
  sitemapPages(db: Executor, projectId: number): Promise<SitemapPageRow[]> {
    return visiblePages(db)
      .where('v.project_id', '=', projectId)
      .select((eb) => [
        'v.slug as version',
        'd.slug as section',
        'p.slug',
        eb.fn
          .coalesce(
            eb
              .selectFrom('page_history as h')
              .select((h) => h.fn.max('h.created').as('at'))
              .whereRef('h.page_id', '=', 'p.id')
              .where('h.operation', '=', 'publish'),
            'p.updated',
          )
          .$castTo<string>()
          .as('lastmod'),
      ])
      .orderBy('v.ordr')
      .orderBy('v.id')
      .orderBy('d.ordr')
      .orderBy('d.id')
      .orderBy('p.position')
      .orderBy('p.id')
      .execute();
  },

  /** Published references (with a published definition) of every published version. */
  sitemapReferences(db: Executor, projectId: number): Promise<SitemapReferenceRow[]> {
    return liveReferences(db)
      .$call(visibleReference)
      .where('v.project_id', '=', projectId)
      .where('r.definition_published', 'is not', null)
      .select(['v.slug as version', 'r.slug', 'r.updated'])
      .orderBy('v.ordr')
      .orderBy('v.id')
      .orderBy('r.ordr')
      .orderBy('r.id')
      .execute();
  },

  /** Published posts of the project's changelogs, newest first in each. */
  sitemapPosts(db: Executor, projectId: number): Promise<SitemapPostRow[]> {
    return db
      .selectFrom('changelog_posts as cp')
      .innerJoin('changelogs as c', 'c.id', 'cp.changelog_id')
      .$call(visiblePost)
      .where('c.project_id', '=', projectId)
      .select(['c.slug as changelog', 'cp.slug', 'cp.updated'])
      .orderBy('c.slug')
      .orderBy('cp.created', 'desc')
      .orderBy('cp.id', 'desc')
      .execute();
  },

  /** The first `chars` characters of the published contents of the pages readers find in a version. */
  pageOpenings(db: Executor, versionId: number, chars: number): Promise<PageOpeningRow[]> {
    return visiblePages(db)
      .where('v.id', '=', versionId)
      .select([
        'p.id',
        'p.title',
        sql<string>`substr(p.content_published, 1, ${sql.lit(chars)})`.as('opening'),
      ])
      .execute();
  },
};
