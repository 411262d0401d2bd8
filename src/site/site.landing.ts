import { redirect, type SiteAnswer } from './site.answer.ts';
import { href, type SiteContext } from './site.context.ts';
import type { SiteHandler } from './site.handler.ts';
import { LandingDocument } from './templates/landing.tsx';

/**
 * The site's landing page, the addresses that lead to a first page (`latest`, a version, a section:
 * redirects to where readers start), and `robots.txt`.
 */
export function registerLanding(handler: SiteHandler): void {
  handler.on('landing', async ({ site }) => {
    const first = site.view.versions[0];
    const navigation = first ? await handler.navigation(site, first.slug) : null;
    return handler.html(
      LandingDocument({
        site,
        navigation,
        switchTargets: navigation ? handler.switchTargets(site, navigation, null) : [],
      }),
    );
  });

  handler.on('latest', async ({ site }, address) => {
    const first = site.view.versions[0];
    if (address.kind !== 'latest' || !first) return null;
    const rest = address.rest.map(encodeURIComponent).join('/');
    return redirect(302, href(site, rest === '' ? `/${first.slug}` : `/${first.slug}/${rest}`));
  });

  handler.on('version', async ({ site }, address) => {
    if (address.kind !== 'version') return null;
    const navigation = await handler.navigation(site, address.version);
    const first = navigation?.order[0];
    return first ? redirect(302, href(site, first.path)) : null;
  });

  handler.on('section', async ({ site }, address) => {
    if (address.kind !== 'section') return null;
    const navigation = await handler.navigation(site, address.version);
    const first = navigation?.bySlug.get(address.section)?.first;
    return first ? redirect(302, href(site, first.path)) : null;
  });

  handler.on('robots', async ({ site }) => robots(site));
}

function robots(site: SiteContext): SiteAnswer {
  const body =
    site.view.project.access === 'invite'
      ? 'User-agent: *\nDisallow: /\n'
      : `User-agent: *\nAllow: /\n\nSitemap: ${site.canonicalRoot}/sitemap.xml\n`;
  return { status: 200, type: 'text/plain; charset=utf-8', body };
}
