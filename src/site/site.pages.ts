import type { PagesService } from '../modules/pages/pages.service.ts';
import type { Navigation } from '../modules/readers/readers.service.ts';
import type { SiteAddress } from './site.address.ts';
import type { SiteAnswer } from './site.answer.ts';
import { describe, siteLinks, tableOfContents } from './site.content.ts';
import { href, type SiteContext } from './site.context.ts';
import { FEEDBACK_FORM_PATH } from './site.feedback.ts';
import type { SiteHandler } from './site.handler.ts';
import { PageDocument } from './templates/page.tsx';
import type { SwitchTarget } from './templates/version-switcher.tsx';

/**
 * A documentation page and its `.md` twin (site.md §2, §3): the page readers can open at the address
 * (listed or not), its published contents through the pages service's render room, and what the
 * page template shows around them, read from the version's navigation.
 */
export function registerPages(handler: SiteHandler, pages: PagesService): void {
  /**
   * The switcher's entries for a page: the same page in each other version where readers can open
   * it there (listed or not), else that version's landing (site.md §3).
   */
  async function switchTargets(
    site: SiteContext,
    navigation: Navigation,
    sectionSlug: string,
    pageSlug: string,
  ): Promise<SwitchTarget[]> {
    const targets: SwitchTarget[] = [];
    for (const target of handler.switchTargets(site, navigation, null)) {
      const slug = target.version.slug;
      const other = slug === navigation.version.slug ? navigation : await handler.navigation(site, slug);
      const section = other?.bySlug.get(sectionSlug);
      const there = section ? await handler.readers.readablePage(section.id, pageSlug) : undefined;
      targets.push(there ? { ...target, path: `/${slug}/${sectionSlug}/${pageSlug}` } : target);
    }
    return targets;
  }

  async function page(
    site: SiteContext,
    address: Extract<SiteAddress, { kind: 'page' | 'markdown' }>,
  ): Promise<SiteAnswer | null> {
    const navigation = await handler.navigation(site, address.version);
    const section = navigation?.bySlug.get(address.section);
    if (!navigation || !section) return null;
    const row = await handler.readers.readablePage(section.id, address.page);
    if (!row) return null;
    const projectId = site.view.project.id;
    if (address.kind === 'markdown') {
      const markdown = await pages.publishedContents(projectId, row.id, 'markdown', site.stamp);
      return markdown === null ? null : { status: 200, type: 'text/markdown; charset=utf-8', body: markdown };
    }
    const contents = await pages.publishedContents(projectId, row.id, 'html', site.stamp);
    if (contents === null) return null;
    const html = siteLinks(contents, href(site, `/${encodeURIComponent(navigation.version.slug)}`));
    const path = `/${navigation.version.slug}/${section.slug}/${row.slug}`;
    const index = navigation.indexOf.get(row.id) ?? -1;
    const parents = [];
    // Bounded: parents come from rows, and a loop among them must not hold the request.
    for (let up = navigation.parentOf.get(row.id); up !== undefined && parents.length < 32;) {
      parents.unshift(up);
      up = navigation.parentOf.get(up.id);
    }
    return handler.html(
      PageDocument({
        site,
        navigation,
        section,
        page: { id: row.id, title: row.title, path },
        html,
        toc: tableOfContents(html),
        description: describe(html, row.title),
        published: await handler.readers.lastPublished(row.id),
        previous: index > 0 ? (navigation.order[index - 1] ?? null) : null,
        next: index >= 0 ? (navigation.order[index + 1] ?? null) : null,
        parents,
        switchTargets: await switchTargets(site, navigation, section.slug, row.slug),
        canonical: `${site.canonicalRoot}${path}`,
        // Every page the site serves ends with the form (site.md §7), an unlisted one too.
        feedbackAction: href(site, FEEDBACK_FORM_PATH),
      }),
    );
  }

  const answer = (ctx: { site: SiteContext }, address: SiteAddress) =>
    address.kind === 'page' || address.kind === 'markdown' ? page(ctx.site, address) : Promise.resolve(null);
  handler.on('page', answer);
  handler.on('markdown', answer);
}
