import type { CommittedSubscriber } from '../changes/change-events.ts';
import { contentWrites } from '../changes/content-writes.ts';
import type { LinkScanWarmer } from './link-scans.warmer.ts';

/**
 * Queues for scanning, once the change has committed, the contents it wrote (contentWrites): a
 * clone's whole version, its links re-pointed to the clone's slug. A change rolled back queues
 * nothing.
 */
export function linkScansSubscriber(warmer: LinkScanWarmer): CommittedSubscriber {
  return ({ event }) => {
    const written = contentWrites(event);
    if (written === null) return;
    if (written.pageIds.length > 0) warmer.queuePages(event.projectId, written.pageIds);
    if (written.versionId !== null) warmer.queueVersion(event.projectId, written.versionId);
  };
}
