import type { Deps } from '../deps.ts';
import { SiteHandler } from './site.handler.ts';
import { referencePages } from './site.reference.ts';

/**
 * The reader site as the app serves it: the handler of its addresses, with every feature's addresses
 * registered on it. Each feature reads through its module's service (decision 0027).
 */
export function buildSite(deps: Deps): SiteHandler {
  const site = new SiteHandler(deps.config, deps.readers, deps.pages);
  site.on('reference', referencePages(site, deps.references));
  return site;
}
