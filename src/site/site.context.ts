import type { FastifyRequest } from 'fastify';
import type { Navigation, ProjectView, ReaderVersionRow } from '../modules/readers/readers.service.ts';
import type { SiteAddress } from './site.address.ts';
import type { SiteAnswer } from './site.answer.ts';

/** Where a request reached a site: the project, and the root its addresses are below. */
export interface SiteRequest {
  projectId: number;
  /** `''`, `/base` or `/sites/7` */
  root: string;
  /** the path below the root, as the request gave it (still percent-encoded) */
  path: string;
}

/** What an address handler is given. */
export interface AddressContext {
  site: SiteContext;
  request: FastifyRequest;
}

/** An extra kind of address (references, changelogs, search, machine files) and what answers it. */
export type AddressHandler = (ctx: AddressContext, address: SiteAddress) => Promise<SiteAnswer | null>;

/**
 * What may answer an address that names nothing readers can see, before the not-found page (the
 * redirects): given the address and the path below the root as the request sent it.
 */
export type MissingHandler = (
  ctx: AddressContext,
  address: SiteAddress,
  path: string,
) => Promise<SiteAnswer | null>;

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
