import type { ReaderPost } from '../../modules/readers/readers.changelogs.ts';
import { href, type SiteContext } from '../site.context.ts';
import { feedHead, postDate, type ChangelogLinks } from './changelog.tsx';
import { Layout } from './layout.tsx';

/**
 * One published post of a changelog: its title, date and contents, whose headings keep the anchors
 * the engine gave them (the fragments `/search` gives for the post).
 */
export function ChangelogPostDocument({
  site,
  changelog,
  post,
  description,
  canonical,
}: {
  site: SiteContext;
  changelog: ChangelogLinks;
  post: ReaderPost;
  description: string;
  canonical: string;
}) {
  return (
    <Layout site={site} head={{ title: post.title, description, canonical, feed: feedHead(site, changelog) }}>
      <div class="layout single">
        <main id="content" tabIndex={-1}>
          <nav class="breadcrumbs" aria-label="Breadcrumbs">
            <ol>
              <li>
                <a href={href(site, '/')}>{site.view.project.name}</a>
              </li>
              <li>
                <a href={href(site, changelog.path)}>{changelog.title}</a>
              </li>
            </ol>
          </nav>
          <article>
            <h1>{post.title}</h1>
            <p class="post-date">Published {postDate(post.created)}</p>
            {/* The engine's html output, sanitised as every HTML Quire gives: the only raw insertion. */}
            <div class="content" dangerouslySetInnerHTML={{ __html: post.html }} />
          </article>
          <p class="page-meta">
            <a href={href(site, changelog.path)}>All posts of {changelog.title}</a>
          </p>
        </main>
      </div>
    </Layout>
  );
}
