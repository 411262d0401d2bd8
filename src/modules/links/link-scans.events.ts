import type { ChangeSubscriber } from '../../events/change-recorder.ts';
import type { LinkScanWarmer } from './link-scans.warmer.ts';

/**
 * Queues for scanning, in the change's transaction, the contents a change writes; nothing is read or
 * scanned there (the warmer starts once the change has committed). A change rolled back leaves ids
 * queued whose contents did not change: their scans are stored already, or are the ones a report
 * would make. The switch is exhaustive: a new kind of change does not compile until it says whether
 * it writes contents.
 */
export function linkScansSubscriber(warmer: LinkScanWarmer): ChangeSubscriber {
  return async (_trx, { event }) => {
    switch (event.type) {
      case 'page.created':
      case 'page.published':
        return warmer.queuePages(event.projectId, [event.page.id]);
      case 'page.updated':
        // A new title, slug or place changes what links lead to, not what a content holds.
        if (event.contentChanged) warmer.queuePages(event.projectId, [event.page.id]);
        return;
      case 'page.restored':
        // Contents not read since the delete, maybe for longer than stored scans are kept.
        return warmer.queuePages(event.projectId, event.pageIds);
      case 'version.cloned':
        // Every page's contents, their links re-pointed to the clone's slug.
        return warmer.queueVersion(event.projectId, event.version.id);
      // No content written: a deleted page's contents are no report's business, a new version or
      // section is empty, references are read by the report itself, and the project's variables
      // (part of every key) are not among what a change moves.
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
      case 'import.completed':
      case 'webhook.created':
      case 'webhook.deleted':
        return;
      default: {
        const unknown: never = event;
        throw new Error(`No link-scan rule for ${(unknown as { type: string }).type}`);
      }
    }
  };
}
