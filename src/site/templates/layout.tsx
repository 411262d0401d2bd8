import type { ComponentChildren } from 'preact';
import { THEME_SCRIPT } from '../site.assets.ts';
import { href, type SiteContext } from '../site.context.ts';

export interface HeadInfo {
  /** the page's own title; the document's is `title | project` */
  title: string;
  description?: string;
  /** absolute URL of the address itself */
  canonical?: string;
  /** the `.md` twin, as a site address */
  markdown?: string;
  /** pages that must stay out of search engines (not found, search results) */
  noindex?: boolean;
  /** an Atom feed to announce */
  feed?: { title: string; href: string };
}

export interface LayoutProps {
  site: SiteContext;
  head: HeadInfo;
  /** the version whose switcher and search the header shows */
  header?: ComponentChildren;
  /** the version the header's search box searches (the page's, when there are several); all when unset */
  searchVersion?: string | undefined;
  /** the login page of a private site: no search box and no sign-out button, as nobody is signed in */
  loginPage?: boolean;
  children: ComponentChildren;
}

/**
 * The document every answer of the site is: head, a header with the project's name, search and the
 * theme toggle, the main content, a footer. Semantic landmarks and a skip link; no script is needed
 * to read or navigate.
 */
export function Layout({ site, head, header, searchVersion, loginPage, children }: LayoutProps) {
  const { project } = site.view;
  const documentTitle = head.title === project.name ? project.name : `${head.title} | ${project.name}`;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{documentTitle}</title>
        {head.description ? <meta name="description" content={head.description} /> : null}
        {head.noindex ? <meta name="robots" content="noindex" /> : null}
        {head.canonical ? <link rel="canonical" href={head.canonical} /> : null}
        {head.canonical ? <meta property="og:url" content={head.canonical} /> : null}
        <meta property="og:title" content={head.title} />
        {head.description ? <meta property="og:description" content={head.description} /> : null}
        <meta property="og:site_name" content={project.name} />
        {head.markdown ? <link rel="alternate" type="text/markdown" href={head.markdown} /> : null}
        {head.feed ? (
          <link rel="alternate" type="application/atom+xml" title={head.feed.title} href={head.feed.href} />
        ) : null}
        {/* The project's logo, or an empty icon: without one, browsers ask for /favicon.ico, which is
            not the site's (a 404 logged on every first visit). */}
        <link rel="icon" href={project.logo ?? 'data:,'} />
        <link rel="stylesheet" href={site.assets.css} />
        {site.assets.projectCss ? <link rel="stylesheet" href={site.assets.projectCss} /> : null}
        {/* Not deferred: it sets a stored dark theme before the first paint (a few hundred bytes). */}
        <script src={href(site, `/_site/${THEME_SCRIPT.name}`)} />
        <script src={site.assets.js} defer />
      </head>
      <body>
        <a class="skip-link" href="#content">
          Skip to content
        </a>
        <header class="site-header">
          <a class="brand" href={href(site, '/')}>
            {project.logo ? <img src={project.logo} alt="" width={32} height={32} /> : null}
            <span>{project.name}</span>
          </a>
          {/* Nobody signed in can search a private site: its login page offers no search box. */}
          {loginPage === true ? null : (
            <form
              class="search-form"
              role="search"
              action={href(site, '/search')}
              method="get"
              data-suggest={href(site, '/search/results.json')}
            >
              <label class="skip-link" for="site-search">
                Search the documentation
              </label>
              {/* A combobox, the ARIA pattern of search as you type: a search box may not say whether its
                  list of suggestions is open. */}
              <input
                id="site-search"
                type="text"
                role="combobox"
                enterkeyhint="search"
                name="q"
                placeholder="Search"
                autocomplete="off"
                maxLength={200}
                aria-controls="site-suggestions"
                aria-expanded="false"
                aria-autocomplete="list"
              />
              {searchVersion !== undefined ? <input type="hidden" name="v" value={searchVersion} /> : null}
              <button type="submit">Search</button>
              <ul id="site-suggestions" class="suggestions" role="listbox" aria-label="Suggestions" />
            </form>
          )}
          {header}
          {project.access === 'invite' && loginPage !== true ? (
            <form class="sign-out" action={href(site, '/logout')} method="post">
              <button type="submit">Sign out</button>
            </form>
          ) : null}
          <button type="button" class="theme-toggle" aria-pressed="false" hidden>
            Dark theme
          </button>
        </header>
        {children}
        <footer class="site-footer">
          <p>{project.name} documentation</p>
        </footer>
      </body>
    </html>
  );
}
