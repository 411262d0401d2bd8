import type { PostPage } from '../../modules/readers/readers.changelogs.ts';
import { absolute, href, type SiteContext } from '../site.context.ts';
import { Layout } from './layout.tsx';

/** A changelog as the site addresses it, and what its pages link to. */
export interface ChangelogLinks {
  title: string;
  /** `/changelog/{slug}`, below the site's root */
  path: string;
}

/** The address of page `n` of a changelog's list: the first is the changelog's own address. */
export const changelogPagePath = (changelog: ChangelogLinks, n: number): string =>
  n === 1 ? changelog.path : `${changelog.path}?page=${n}`;

export const feedHead = (site: SiteContext, changelog: ChangelogLinks) => ({
  title: `${changelog.title} (Atom feed)`,
  href: href(site, `${changelog.path}/feed.xml`),
});

export const postDate = (stored: string) => <time dateTime={stored}>{stored.slice(0, 10)}</time>;

/**
 * A page of a changelog (site.md §2): its published posts, newest first, each with its title linking
 * to the post, its date and its contents; links to newer and older pages, and to the feed.
 */
export function ChangelogDocument({
  site,
  changelog,
  list,
}: {
  site: SiteContext;
  changelog: ChangelogLinks;
  /** the page's posts, their HTML with anchors made unique on the page */
  list: PostPage;
}) {
  const { project } = site.view;
  const title = list.page === 1 ? changelog.title : `${changelog.title}, page ${list.page} of ${list.pages}`;
  return (
    <Layout
      site={site}
      head={{
        title,
        description: `${changelog.title}: the latest changes to ${project.name}.`,
        canonical: absolute(site, changelogPagePath(changelog, list.page)),
        feed: feedHead(site, changelog),
      }}
    >
      <div class="layout single">
        <main id="content" tabIndex={-1}>
          <nav class="breadcrumbs" aria-label="Breadcrumbs">
            <ol>
              <li>
                <a href={href(site, '/')}>{project.name}</a>
              </li>
            </ol>
          </nav>
          <h1>{title}</h1>
          <p>
            <a href={href(site, `${changelog.path}/feed.xml`)} type="application/atom+xml">
              Follow the changes with the Atom feed
            </a>
          </p>
          {list.posts.map((post) => (
            <article key={post.id} class="post">
              <h2>
                <a href={href(site, `${changelog.path}/${encodeURIComponent(post.slug)}`)}>{post.title}</a>
              </h2>
              <p class="post-date">{postDate(post.created)}</p>
              {/* The engine's html output, sanitised as every HTML Quire gives: the only raw insertion. */}
              <div class="content" dangerouslySetInnerHTML={{ __html: post.html }} />
            </article>
          ))}
          {list.pages > 1 ? (
            <nav class="pager" aria-label="Newer and older posts">
              {list.page > 1 ? (
                <a class="previous" href={href(site, changelogPagePath(changelog, list.page - 1))} rel="prev">
                  <small>Previous page</small>
                  Newer posts
                </a>
              ) : null}
              {list.page < list.pages ? (
                <a class="next" href={href(site, changelogPagePath(changelog, list.page + 1))} rel="next">
                  <small>Next page</small>
                  Older posts
                </a>
              ) : null}
            </nav>
          ) : null}
        </main>
      </div>
    </Layout>
  );
}
