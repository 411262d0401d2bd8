import type { Navigation } from '../modules/readers/readers.service.ts';
import type { SearchHit } from '../modules/search/search.presenter.ts';
import { cutAt } from './site.content.ts';
import { href, type SiteContext } from './site.context.ts';

/** A search hit as the site shows it. */
export interface SiteHit {
  /** the hit's address on this site, with its fragment */
  url: string;
  title: string;
  /** where the hit is: the version (when there are several), the section, the page */
  context: string;
  /** the excerpt: HTML with the matches in <mark> once checked (see safeHighlight), else text */
  excerpt: { html: string } | { text: string };
}

/** A version's navigation by slug, or null when readers see no such version. */
export type NavigationOf = (slug: string) => Promise<Navigation | null>;

/** What the search presenter's highlights are made of: escaped text and <mark> elements, no more. */
const HIGHLIGHT_GRAMMAR = /^(?:[^<>&]|&(?:amp|lt|gt|quot);|<\/?mark>)*$/;
const MARK_TAG = /<(\/?)mark>/g;
const EXCERPT_CHARS = 200;

/**
 * The highlight as HTML when it is exactly what src/modules/search/search.presenter.ts promises
 * (every character of the text escaped by escapeHtml, matches in balanced, unnested <mark>
 * elements); null otherwise, and the site then shows the hit's text instead. It is the one HTML the
 * search page inserts raw, so it is checked here rather than trusted.
 */
export function safeHighlight(html: string): string | null {
  if (!HIGHLIGHT_GRAMMAR.test(html)) return null;
  let open = false;
  for (const tag of html.matchAll(MARK_TAG)) {
    const closing = tag[1] === '/';
    if (closing !== open) return null;
    open = !closing;
  }
  return open ? null : html;
}

/**
 * The site's view of the service's hits: addresses below the site's root and, for context, the
 * titles readers see in the navigation (built once per change of the project, so this reads no
 * data per request once a version's navigation is kept).
 */
export async function presentHits(
  site: SiteContext,
  hits: readonly SearchHit[],
  navigationOf: NavigationOf,
): Promise<SiteHit[]> {
  const navigations = new Map<string, Navigation | null>();
  const navigation = async (slug: string | null): Promise<Navigation | null> => {
    if (slug === null) return null;
    if (!navigations.has(slug)) navigations.set(slug, await navigationOf(slug));
    return navigations.get(slug) ?? null;
  };
  const presented: SiteHit[] = [];
  for (const hit of hits) {
    const highlighted = safeHighlight(hit.highlight.content);
    presented.push({
      url: href(site, hit.path),
      title: hit.title === '' ? hit.page : hit.title,
      context: contextOf(site, hit, await navigation(hit.version)).join(' › '),
      excerpt: highlighted === null ? { text: cutAt(hit.content, EXCERPT_CHARS) } : { html: highlighted },
    });
  }
  return presented;
}

/** The names of where a hit is, outermost first, as readers see them (slugs when a title is gone). */
function contextOf(site: SiteContext, hit: SearchHit, navigation: Navigation | null): string[] {
  if (hit.sectionType === 'changelog') {
    const changelog = site.view.changelogs.find((c) => c.slug === hit.section);
    return ['Changelog', changelog?.title ?? hit.section];
  }
  const names: string[] = [];
  if (site.view.versions.length > 1) names.push(navigation?.version.name ?? hit.version ?? '');
  if (hit.sectionType === 'ref') {
    const reference = navigation?.references.find((r) => r.slug === hit.page);
    names.push(reference?.title ?? hit.page);
    return names;
  }
  names.push(navigation?.bySlug.get(hit.section)?.title ?? hit.section);
  // The first entry of a page is titled with the page's title; the others with their heading.
  if (hit.fragment !== '') {
    const page = hit.pageId === null ? undefined : navigation?.byId.get(hit.pageId);
    names.push(page?.title ?? hit.page);
  }
  return names;
}
