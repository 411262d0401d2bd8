import type { ChangeEvent } from './change-events.ts';

/** The page contents a change wrote: pages by id, and a version all of whose pages it wrote. */
export interface ContentWrites {
  pageIds: readonly number[];
  /** a clone: every page of the new version holds its source's contents, links re-pointed */
  versionId: number | null;
}

/**
 * What a change wrote of page contents, for the subscribers that derive data from them (link scans,
 * rendered contents); null when it wrote none. A new title, slug or place changes what links lead
 * to, not what a content holds; a deleted page's contents are no reader's business any more; a new
 * version or section is empty; references, variables and the rest are not page contents. An import
 * writes its pages through the page service, which records them one by one. The switch is
 * exhaustive: a new kind of change does not compile until it says whether it writes contents.
 */
export function contentWrites(event: ChangeEvent): ContentWrites | null {
  switch (event.type) {
    case 'page.created':
    case 'page.published':
      return { pageIds: [event.page.id], versionId: null };
    case 'page.updated':
      return event.contentChanged ? { pageIds: [event.page.id], versionId: null } : null;
    case 'page.restored':
      // Contents not read since the delete, maybe for longer than derived data is kept.
      return { pageIds: event.pageIds, versionId: null };
    case 'version.cloned':
      return { pageIds: [], versionId: event.version.id };
    case 'import.completed':
    case 'page.deleted':
    case 'version.created':
    case 'version.updated':
    case 'version.deleted':
    case 'documentation.created':
    case 'documentation.updated':
    case 'documentation.deleted':
    case 'category.created':
    case 'reference.uploaded':
    case 'reference.published':
    case 'project.created':
    case 'project.updated':
    case 'api_key.created':
    case 'api_key.revoked':
    case 'user.created':
    case 'reader_access.granted':
    case 'reader_access.revoked':
    case 'changelog.created':
    case 'changelog_post.created':
    case 'webhook.created':
    case 'webhook.deleted':
      return null;
    default: {
      const unknown: never = event;
      throw new Error(`No content rule for ${(unknown as { type: string }).type}`);
    }
  }
}
