import type { Deps } from '../deps.ts';
import { SiteHandler } from './site.handler.ts';
import { registerRedirects } from './site.redirects.ts';

/**
 * The reader site as the app serves it: the handler of its addresses, with every feature's addresses
 * registered on it. Each feature reads through its module's service (decision 0027).
 */
export function buildSite(deps: Deps): SiteHandler {
  const site = new SiteHandler(deps.config, deps.readers, deps.pages);
  registerRedirects(site, deps.redirects);
  return site;
}
