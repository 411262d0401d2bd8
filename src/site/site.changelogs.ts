import { createHash } from 'node:crypto';
import type { ReaderChangelogs, ReaderPost } from '../modules/readers/readers.changelogs.ts';
import type { SiteAnswer } from './site.answer.ts';
import { describe, siteLinks } from './site.content.ts';
import { absolute, href, type SiteContext } from './site.context.ts';
import type { SiteHandler } from './site.handler.ts';
import { element, xmlDocument } from './site.xml.ts';
import { ChangelogPostDocument } from './templates/changelog-post.tsx';
import { ChangelogDocument, type ChangelogLinks } from './templates/changelog.tsx';

/** Posts on a page of a changelog's list. */
export const POSTS_PER_PAGE = 20;
/** Posts a feed carries, the newest. */
export const POSTS_PER_FEED = 50;

const ATOM = 'http://www.w3.org/2005/Atom';
export const ATOM_TYPE = 'application/atom+xml; charset=utf-8';

/**
 * A changelog's addresses (site.md §2): its posts a page at a time, one post, and its Atom feed.
 * The changelog is found in the project's view, which lists those with a published post: another
 * is not found, as an unpublished post is.
 */
export function registerChangelogs(site: SiteHandler, changelogs: ReaderChangelogs): void {
  site.on(
    'changelog',
    async ({ site: ctx, request }, address) => {
      if (address.kind !== 'changelog') return null;
      const changelog = changelogOf(ctx, address.changelog);
      const page = pageNumber(request.url);
      if (!changelog || page === null) return null;
      const list = await changelogs.page(changelog.id, page, POSTS_PER_PAGE, ctx.view.project.variables);
      if (!list) return null;
      const posts = list.posts.map((post) => ({
        ...post,
        html: scopedAnchors(pageLinks(ctx, post.html, href), post.slug),
      }));
      return site.html(ChangelogDocument({ site: ctx, changelog, list: { ...list, posts } }));
    },
    (request) => String(pageNumber(request.url) ?? 'none'),
  );

  site.on('post', async ({ site: ctx }, address) => {
    if (address.kind !== 'post') return null;
    const changelog = changelogOf(ctx, address.changelog);
    if (!changelog) return null;
    const read = await changelogs.post(changelog.id, address.post, ctx.view.project.variables);
    if (!read) return null;
    const post = { ...read, html: pageLinks(ctx, read.html, href) };
    return site.html(
      ChangelogPostDocument({
        site: ctx,
        changelog,
        post,
        description: describe(post.html, post.title),
        canonical: absolute(ctx, postPath(changelog, post)),
      }),
    );
  });

  site.on('feed', async ({ site: ctx }, address) => {
    if (address.kind !== 'feed') return null;
    const changelog = changelogOf(ctx, address.changelog);
    if (!changelog) return null;
    const [created, posts] = [
      await changelogs.created(changelog.id),
      await changelogs.newest(changelog.id, POSTS_PER_FEED, ctx.view.project.variables),
    ];
    if (created === null) return null;
    // A feed is read away from the site: its links are absolute.
    const linked = posts.map((post) => ({ ...post, html: pageLinks(ctx, post.html, absolute) }));
    return feed(ctx, changelog, created, linked);
  });
}

type SiteChangelog = ChangelogLinks & { id: number; slug: string };

function changelogOf(site: SiteContext, slug: string): SiteChangelog | null {
  const changelog = site.view.changelogs.find((c) => c.slug === slug);
  return changelog ? { ...changelog, path: `/changelog/${encodeURIComponent(changelog.slug)}` } : null;
}

/**
 * A post's links to pages, which name no version (`/<section>/<page>`, as a page's do), lead below the
 * default version: a changelog belongs to no version, and the default is the one readers start in.
 */
function pageLinks(
  site: SiteContext,
  html: string,
  address: (site: SiteContext, path: string) => string,
): string {
  const version = site.view.versions[0];
  return version ? siteLinks(html, address(site, `/${encodeURIComponent(version.slug)}`)) : html;
}

const postPath = (changelog: ChangelogLinks, post: Pick<ReaderPost, 'slug'>): string =>
  `${changelog.path}/${encodeURIComponent(post.slug)}`;

/**
 * The page of a list a request asks for: 1 without `page`, else a whole number written plainly
 * (`?page=2`); null for anything else (`page=0`, `page=2x`, `page` twice), which names no page.
 */
export function pageNumber(url: string): number | null {
  const query = url.indexOf('?');
  if (query === -1) return 1;
  const values = new URLSearchParams(url.slice(query + 1)).getAll('page');
  if (values.length === 0) return 1;
  const [value] = values;
  return values.length === 1 && value !== undefined && /^[1-9][0-9]{0,5}$/.test(value) ? Number(value) : null;
}

/**
 * A post's HTML with its anchors made its own, for a page that shows several posts: each `id` the
 * engine gave (headings, footnotes) and each link to one within the post gain the post's slug, so
 * that two posts with the same heading do not share an id. The HTML is the engine's sanitised output:
 * in it `<` and `>` stand only at tags, and an attribute's value never holds a double quote.
 */
export function scopedAnchors(html: string, slug: string): string {
  return html.replace(/<[a-zA-Z][^<>]*>/g, (tag) =>
    tag.replace(/(\sid=")([^"]*")/g, `$1${slug}--$2`).replace(/(\shref="#)([^"]*")/g, `$1${slug}--$2`),
  );
}

/** The Atom document (RFC 4287) of a changelog's newest posts. */
function feed(site: SiteContext, changelog: SiteChangelog, created: string, posts: ReaderPost[]): SiteAnswer {
  const { project } = site.view;
  const updated = posts.reduce((newest, post) => (post.updated > newest ? post.updated : newest), created);
  const body = xmlDocument(
    element(
      'feed',
      { xmlns: ATOM },
      element('id', {}, stableId(`changelog ${project.id} ${changelog.id} ${created}`)),
      element('title', {}, `${changelog.title} | ${project.name}`),
      element('link', {
        rel: 'self',
        type: 'application/atom+xml',
        href: absolute(site, `${changelog.path}/feed.xml`),
      }),
      element('link', { rel: 'alternate', type: 'text/html', href: absolute(site, changelog.path) }),
      element('updated', {}, updated),
      element('author', {}, element('name', {}, project.name)),
      ...posts.map((post) =>
        element(
          'entry',
          {},
          element('id', {}, stableId(`post ${project.id} ${post.id} ${post.created}`)),
          element('title', {}, post.title),
          element('link', {
            rel: 'alternate',
            type: 'text/html',
            href: absolute(site, postPath(changelog, post)),
          }),
          element('published', {}, post.created),
          element('updated', {}, post.updated),
          element('content', { type: 'html' }, post.html),
        ),
      ),
    ),
  );
  return { status: 200, type: ATOM_TYPE, body };
}

/** The namespace of the feeds' name-based UUIDs (RFC 9562 §5.5), chosen once for Quire. */
const FEED_NAMESPACE = Buffer.from('5c1a7e0e6f0b4f7e9a4d2b8f3c6d1e20', 'hex');

/**
 * A feed's or an entry's id: a UUID named by the project, the changelog or post and when it was
 * made, so that it stays the same whatever address the site is read at (a host set later, or
 * `/sites/{id}` on another host) and differs between two Quire servers that use the same ids.
 */
export function stableId(name: string): string {
  const hash = createHash('sha1').update(FEED_NAMESPACE).update(name, 'utf8').digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
