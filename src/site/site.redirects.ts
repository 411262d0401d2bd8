import type { CurrentAddress, RedirectsService } from '../modules/redirects/redirects.service.ts';
import type { SiteAddress } from './site.address.ts';
import { href, type SiteContext } from './site.context.ts';
import { redirect } from './site.answer.ts';
import type { MissingHandler, SiteHandler } from './site.handler.ts';

/**
 * The site's redirects (site.md §2), tried when an address names nothing readers can see: first
 * the addresses pages, sections and versions had before a slug changed, then the project's own
 * rules. Every target is a path below the site's root, so no redirect leaves the site.
 */
export function registerRedirects(site: SiteHandler, redirects: RedirectsService): void {
  site.onMissing(formerAddresses(site, redirects));
  site.onMissing(projectRules(redirects));
}

/** The slugs an address names a version, a section or a page by; null for any other address. */
function slugsOf(address: SiteAddress): string[] | null {
  switch (address.kind) {
    case 'version':
      return [address.version];
    case 'section':
      return [address.version, address.section];
    case 'page':
    case 'markdown':
      return [address.version, address.section, address.page];
    case 'landing':
    case 'asset':
    case 'search':
    case 'search-json':
    case 'llms':
    case 'sitemap':
    case 'robots':
    case 'latest':
    case 'changelog':
    case 'feed':
    case 'post':
    case 'reserved':
    case 'login':
    case 'logout':
    case 'reference':
    case 'unknown':
      return null;
  }
}

/**
 * An address a page (or a section, or a version) had: `301` to its address now, in one hop however
 * often it moved, when readers can see it there; nothing when they cannot, or when it is there.
 */
function formerAddresses(handler: SiteHandler, redirects: RedirectsService): MissingHandler {
  return async ({ site }, address) => {
    const slugs = slugsOf(address);
    if (slugs === null) return null;
    const now = await redirects.current(site.view.project.id, slugs);
    if (now === null) return null;
    const path = await readablePath(handler, site, now);
    if (path === null || path === `/${slugs.join('/')}`) return null;
    return redirect(301, href(site, address.kind === 'markdown' ? `${path}.md` : path));
  };
}

/** The address of what `now` names, below the site's root, when readers can see something there. */
async function readablePath(
  handler: SiteHandler,
  site: SiteContext,
  now: CurrentAddress,
): Promise<string | null> {
  const navigation = await handler.navigation(site, now.versionSlug);
  if (navigation === null || navigation.version.id !== now.versionId) return null;
  if (now.kind === 'version') return navigation.order.length > 0 ? `/${now.versionSlug}` : null;
  const section = navigation.bySlug.get(now.sectionSlug);
  if (section === undefined || section.id !== now.sectionId) return null;
  const path = `/${now.versionSlug}/${now.sectionSlug}`;
  if (now.kind === 'section') return section.first !== null ? path : null;
  const page = await handler.readers.readablePage(section.id, now.pageSlug);
  return page !== undefined && page.id === now.pageId ? `${path}/${now.pageSlug}` : null;
}

/** The project's own rules (`--redirects FILE`): `301` to the first matching rule's destination. */
function projectRules(redirects: RedirectsService): MissingHandler {
  return ({ site }, _address, path) => {
    const project = site.view.project;
    const target = redirects.ruleTarget(project.id, project.redirects, path);
    return Promise.resolve(target === null ? null : redirect(301, href(site, target)));
  };
}
