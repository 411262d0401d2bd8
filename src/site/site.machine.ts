import { escapeMarkdownText, markdownDestination } from '../content/escape.ts';
import type { Navigation, NavPage } from '../modules/readers/readers.service.ts';
import type { ReaderMachine, SitemapRows } from '../modules/readers/readers.machine.ts';
import type { SiteAnswer } from './site.answer.ts';
import { absolute, type SiteContext } from './site.context.ts';
import type { SiteHandler } from './site.handler.ts';
import { element, xmlDocument, type XmlElement } from './site.xml.ts';

const SITEMAP = 'http://www.sitemaps.org/schemas/sitemap/0.9';
export const SITEMAP_TYPE = 'application/xml; charset=utf-8';
export const LLMS_TYPE = 'text/plain; charset=utf-8';
/** The sitemap protocol's limit of addresses in one file. */
export const MAX_SITEMAP_URLS = 50_000;

/**
 * The site's files for machines (site.md §2): `sitemap.xml`, every address readers find with when it
 * last changed, and `llms.txt` (llmstxt.org), the default version's sections and pages with a link to
 * each page's Markdown. The handler keeps both under the project's change stamp.
 */
export function registerMachineFiles(site: SiteHandler, machine: ReaderMachine): void {
  site.on('sitemap', async ({ site: ctx }) => sitemap(ctx, await machine.sitemap(ctx.view.project.id)));

  site.on('llms', async ({ site: ctx }) => {
    const version = ctx.view.versions[0];
    const navigation = version ? await site.navigation(ctx, version.slug) : null;
    const descriptions = navigation
      ? await machine.descriptions(navigation.version.id, ctx.view.project.variables)
      : new Map<number, string>();
    return { status: 200, type: LLMS_TYPE, body: llmsText(ctx, navigation, descriptions) };
  });
}

const segment = encodeURIComponent;

/** A stored date as a W3C date and time, to the second. */
const w3cDate = (stored: string): string => `${stored.slice(0, 19)}+00:00`;

function sitemap(site: SiteContext, rows: SitemapRows): SiteAnswer {
  const urls: Array<{ path: string; lastmod: string }> = [];
  for (const page of rows.pages) {
    urls.push({
      path: `/${segment(page.version)}/${segment(page.section)}/${segment(page.slug)}`,
      lastmod: page.lastmod,
    });
  }
  for (const reference of rows.references) {
    urls.push({
      path: `/${segment(reference.version)}/ref/${segment(reference.slug)}`,
      lastmod: reference.updated,
    });
  }
  const newestPost = new Map<string, string>();
  for (const post of rows.posts) {
    const path = `/changelog/${segment(post.changelog)}`;
    const newest = newestPost.get(path);
    if (newest === undefined || post.updated > newest) newestPost.set(path, post.updated);
    urls.push({ path: `${path}/${segment(post.slug)}`, lastmod: post.updated });
  }
  for (const [path, lastmod] of newestPost) urls.push({ path, lastmod });
  if (urls.length > 0) {
    const newest = urls.reduce((max, url) => (url.lastmod > max ? url.lastmod : max), '');
    urls.unshift({ path: '/', lastmod: newest });
  }
  const entries: XmlElement[] = urls
    .slice(0, MAX_SITEMAP_URLS)
    .map((url) =>
      element(
        'url',
        {},
        element('loc', {}, absolute(site, url.path)),
        element('lastmod', {}, w3cDate(url.lastmod)),
      ),
    );
  return {
    status: 200,
    type: SITEMAP_TYPE,
    body: xmlDocument(element('urlset', { xmlns: SITEMAP }, ...entries)),
  };
}

/** Text for one line of Markdown: white space run together, the characters of its syntax escaped. */
const inline = (text: string): string => escapeMarkdownText(text.replace(/\s+/g, ' ').trim());

/**
 * llms.txt (llmstxt.org): the project's name as the title, a summary, then one section per section of
 * the default version that readers find a page in, listing each such page, in index order, as a link
 * to its Markdown with its description.
 */
export function llmsText(
  site: SiteContext,
  navigation: Navigation | null,
  descriptions: ReadonlyMap<number, string>,
): string {
  const { project } = site.view;
  const lines = [`# ${inline(project.name)}`, ''];
  lines.push(
    navigation
      ? `> The documentation of ${inline(project.name)}, version ${inline(navigation.version.name)}: each page below links to its Markdown.`
      : `> The documentation of ${inline(project.name)}. Nothing is published yet.`,
  );
  const bySection = new Map<number, NavPage[]>();
  for (const page of navigation?.order ?? []) {
    const pages = bySection.get(page.sectionId);
    if (pages) pages.push(page);
    else bySection.set(page.sectionId, [page]);
  }
  for (const section of navigation?.sections ?? []) {
    const pages = bySection.get(section.id);
    if (!pages) continue;
    lines.push('', `## ${inline(section.title)}`, '');
    for (const page of pages) {
      const url = markdownDestination(absolute(site, `${page.path}.md`));
      const description = descriptions.get(page.id);
      lines.push(`- [${inline(page.title)}](${url})${description ? `: ${inline(description)}` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
