import type { Deps } from '../deps.ts';
import { ReaderChangelogs } from '../modules/readers/readers.changelogs.ts';
import { ReaderMachine } from '../modules/readers/readers.machine.ts';
import { registerChangelogs } from './site.changelogs.ts';
import { describe } from './site.content.ts';
import { SiteHandler } from './site.handler.ts';
import { registerLanding } from './site.landing.ts';
import { SiteLogin } from './site.login.ts';
import { registerMachineFiles } from './site.machine.ts';
import { registerPages } from './site.pages.ts';
import { referencePages } from './site.reference.ts';
import { SiteSearch } from './site.search.ts';
import { registerRedirects } from './site.redirects.ts';

/**
 * The reader site as the app serves it: the handler of its addresses, with every feature's addresses
 * registered on it. Each feature reads through its module's service (decision 0027).
 */
export function buildSite(deps: Deps): SiteHandler {
  const site = new SiteHandler(deps.config, deps.readers);
  registerLanding(site);
  registerPages(site, deps.pages);
  new SiteSearch(site, deps).register();
  registerChangelogs(site, new ReaderChangelogs(deps.database.reader, deps.changelogs));
  registerMachineFiles(site, new ReaderMachine(deps.database.reader, describe));
  site.on('reference', referencePages(site, deps.references));
  registerRedirects(site, deps.redirects);
  site.guard(new SiteLogin(deps.readerLogin, deps.siteKeys));
  return site;
}
