import type { ChangeSubscriber } from '../changes/change-events.ts';
import { contentWrites } from '../changes/content-writes.ts';
import type { LinkScanWarmer } from './link-scans.warmer.ts';

/**
 * Queues for scanning, in the change's transaction, the contents a change writes (contentWrites):
 * a clone's whole version, its links re-pointed to the clone's slug. Nothing is read or scanned
 * there (the warmer starts once the change has committed). A change rolled back leaves ids queued
 * whose contents did not change: their scans are stored already, or are the ones a report would make.
 */
export function linkScansSubscriber(warmer: LinkScanWarmer): ChangeSubscriber {
  return async (_trx, { event }) => {
    const written = contentWrites(event);
    if (written === null) return;
    if (written.pageIds.length > 0) warmer.queuePages(event.projectId, written.pageIds);
    if (written.versionId !== null) warmer.queueVersion(event.projectId, written.versionId);
  };
}
