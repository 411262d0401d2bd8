import type { Navigation, ProjectView, ReaderVersionRow } from '../modules/readers/readers.service.ts';

/** The site a request reached, and where: what every template and answer of it is built from. */
export interface SiteContext {
  view: ProjectView;
  /** the site's root as the request addressed it: `''` (a host's root), `/base` or `/sites/7` */
  root: string;
  /**
   * the absolute root canonical addresses name: the project's host and base path when it has a host
   * (whatever address the request used), else the request's own origin and root
   */
  canonicalRoot: string;
  /** the project's change stamp read before anything else, or null (nothing is kept) */
  stamp: string | null;
  /** the stylesheet and script addresses (content-hashed) */
  assets: SiteAssetLinks;
}

export interface SiteAssetLinks {
  css: string;
  js: string;
  /** the project's stylesheet: its brand colour (--site-color) and its own CSS (--site-css); or null */
  projectCss: string | null;
}

/** A version with its navigation: what a page, a redirect and the switcher need of it. */
export interface VersionNavigation {
  version: ReaderVersionRow;
  navigation: Navigation;
}

/** An address below the site's root as a link of the site. */
export const href = (site: Pick<SiteContext, 'root'>, path: string): string =>
  `${site.root}${path === '' ? '/' : path}`;

/** An address below the site's root as an absolute URL (canonical, OpenGraph, sitemap, feeds). */
export const absolute = (site: Pick<SiteContext, 'canonicalRoot'>, path: string): string =>
  `${site.canonicalRoot}${path === '' ? '/' : path}`;
