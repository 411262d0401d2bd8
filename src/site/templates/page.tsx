import type { Navigation, NavPage, NavSection } from '../../modules/readers/readers.service.ts';
import { href, type SiteContext } from '../site.context.ts';
import { FeedbackForm } from './feedback.tsx';
import { Layout } from './layout.tsx';
import { SiteNavigation } from './navigation.tsx';
import { VersionSwitcher, type SwitchTarget } from './version-switcher.tsx';

export interface TocEntry {
  level: 2 | 3;
  id: string;
  text: string;
}

export interface PageProps {
  site: SiteContext;
  navigation: Navigation;
  section: NavSection;
  page: { id: number; title: string; path: string };
  /** the engine's sanitised HTML of the published contents */
  html: string;
  toc: TocEntry[];
  description: string;
  /** ISO date the contents were last published */
  published: string | null;
  previous: NavPage | null;
  next: NavPage | null;
  /** the page's parents in the navigation, outermost first */
  parents: NavPage[];
  switchTargets: SwitchTarget[];
  canonical: string;
  /** where "Was this page helpful?" is sent; null on an unlisted page, which takes no feedback */
  feedbackAction: string | null;
}

/** A documentation page (the specification's site.md §3). */
export function PageDocument(props: PageProps) {
  const { site, navigation, section, page, toc } = props;
  return (
    <Layout
      site={site}
      head={{
        title: page.title,
        description: props.description,
        canonical: props.canonical,
        markdown: href(site, `${page.path}.md`),
      }}
      header={<VersionSwitcher site={site} current={navigation.version} targets={props.switchTargets} />}
      searchVersion={site.view.versions.length > 1 ? navigation.version.slug : undefined}
    >
      <div class={toc.length > 0 ? 'layout' : 'layout no-toc'}>
        <SiteNavigation site={site} navigation={navigation} currentId={page.id} sectionId={section.id} />
        <main id="content" tabIndex={-1}>
          <nav class="breadcrumbs" aria-label="Breadcrumbs">
            <ol>
              <li>
                <a href={href(site, '/')}>{site.view.project.name}</a>
              </li>
              <li>
                {section.first ? <a href={href(site, section.first.path)}>{section.title}</a> : section.title}
              </li>
              {props.parents.map((parent) => (
                <li key={parent.id}>
                  <a href={href(site, parent.path)}>{parent.title}</a>
                </li>
              ))}
            </ol>
          </nav>
          <article>
            <h1>{page.title}</h1>
            {/* The engine's html output, sanitised as every HTML Quire gives: the only raw insertion. */}
            <div class="content" dangerouslySetInnerHTML={{ __html: props.html }} />
          </article>
          {props.published ? (
            <p class="page-meta">
              Last published <time dateTime={props.published}>{props.published.slice(0, 10)}</time>
            </p>
          ) : null}
          {props.feedbackAction !== null ? (
            <FeedbackForm action={props.feedbackAction} page={page.path} />
          ) : null}
          <nav class="pager" aria-label="Previous and next pages">
            {props.previous ? (
              <a class="previous" href={href(site, props.previous.path)} rel="prev">
                <small>Previous</small>
                {props.previous.title}
              </a>
            ) : null}
            {props.next ? (
              <a class="next" href={href(site, props.next.path)} rel="next">
                <small>Next</small>
                {props.next.title}
              </a>
            ) : null}
          </nav>
        </main>
        {toc.length > 0 ? (
          <aside class="toc" aria-label="Table of contents">
            <nav aria-label="On this page">
              <h2>On this page</h2>
              <ul>
                {toc.map((entry) => (
                  <li key={entry.id} class={`level-${entry.level}`}>
                    <a href={`#${entry.id}`}>{entry.text}</a>
                  </li>
                ))}
              </ul>
            </nav>
          </aside>
        ) : null}
      </div>
    </Layout>
  );
}
