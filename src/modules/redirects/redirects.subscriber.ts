import type { ChangeSubscriber } from '../changes/change-events.ts';
import { redirectsRepository as repo } from './redirects.repository.ts';

/**
 * Remembers a slug as it is given up, in the change's transaction: a version's, a section's or a
 * page's former slug keeps naming it, so its former addresses answer `301` to the new one. (A page
 * that went to another section would be remembered the same way, under the section it left; no
 * operation moves one there today.)
 */
export const formerSlugsSubscriber: ChangeSubscriber = (trx, { event }, writes) => {
  if (event.type === 'page.updated' && event.before.slug !== event.page.slug) {
    writes.add(repo.rememberingPage(trx, event.page.id, event.before.slug));
  } else if (event.type === 'page.restored' && event.slugTaken !== null) {
    // Restored under another slug, as another page took its own meanwhile.
    writes.add(repo.rememberingPage(trx, event.page.id, event.slugTaken));
  } else if (event.type === 'documentation.updated' && event.before.slug !== event.documentation.slug) {
    writes.add(repo.remembering(trx, 'section', event.versionId, event.before.slug, event.documentation.id));
  } else if (event.type === 'version.updated' && event.before.slug !== event.version.slug) {
    writes.add(repo.remembering(trx, 'version', event.projectId, event.before.slug, event.version.id));
  }
  return Promise.resolve();
};
