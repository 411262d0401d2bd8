import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Navigation, ProjectView, ReadersService } from '../modules/readers/readers.service.ts';
import { LruCache } from '../shared/lru-cache.ts';
import { siteHostOf } from '../shared/site-host.ts';
import { parseAddress, type SiteAddress } from './site.address.ts';
import { HTML, sendSiteAnswer, strongTag, type SiteAnswer } from './site.answer.ts';
import { projectStylesheet, SiteAssets, type SiteAsset } from './site.assets.ts';
import { href, type SiteContext } from './site.context.ts';
import type { FormFields, SiteLogin } from './site.login.ts';
import { htmlDocument } from './site.html.ts';
import { BareDocument } from './templates/bare.tsx';
import { LandingDocument } from './templates/landing.tsx';
import { NotFoundDocument } from './templates/not-found.tsx';
import { PageDocument } from './templates/page.tsx';
import type { SwitchTarget } from './templates/version-switcher.tsx';

/** Where a request reached a site: the project, and the root its addresses are below. */
export interface SiteRequest {
  projectId: number;
  /** `''`, `/base` or `/sites/7` */
  root: string;
  /** the path below the root, as the request gave it (still percent-encoded) */
  path: string;
}

const MAX_ID = 2_147_483_647;

/** A project's canonical origin (from its `host`, or null) and its stylesheet. */
interface Derived {
  origin: string | null;
  css: SiteAsset | null;
}

interface Kept {
  stamp: string;
  answer: SiteAnswer;
  etag: string;
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

/**
 * The reader site (the specification's site.md, docs/decisions/0027-reader-site.md): an address below a
 * site's root → what readers may see there, rendered by the templates. Answers of addresses without a
 * query are kept under the project's change stamp, so a cached page costs a stamp read and a lookup,
 * and a change shows at the next request.
 */
export class SiteHandler {
  readonly assets = new SiteAssets();
  private readonly kept = new LruCache<Kept>(20_000, 64 * 1024 * 1024, (k) => k.answer.body.length + 200);
  private readonly handlers = new Map<SiteAddress['kind'], AddressHandler>();
  private readonly derivedOf = new WeakMap<ProjectView, Derived>();
  private readonly variants = new Map<SiteAddress['kind'], (request: FastifyRequest) => string>();
  private readonly missing: MissingHandler[] = [];
  private login: SiteLogin | null = null;

  constructor(
    private readonly config: Config,
    readonly readers: ReadersService,
  ) {}

  /**
   * Adds what answers a kind of address (the site's features register themselves here). `variant`
   * names what else of the request its answers depend on (a page number), so that they are kept apart.
   */
  on(
    kind: SiteAddress['kind'],
    handler: AddressHandler,
    variant?: (request: FastifyRequest) => string,
  ): void {
    this.handlers.set(kind, handler);
    if (variant) this.variants.set(kind, variant);
    else this.variants.delete(kind);
  }

  /** Puts private sites behind their login (site.md §6); without it they show only their not-found page. */
  guard(login: SiteLogin): void {
    this.login = login;
  }

  /**
   * A form sent to a site (`POST {site}/login`, `POST {site}/logout` of a private one); any other is
   * the site's not-found page.
   */
  async servePost(
    request: FastifyRequest,
    reply: FastifyReply,
    at: SiteRequest,
    form: FormFields,
  ): Promise<FastifyReply> {
    try {
      if (!Number.isSafeInteger(at.projectId) || at.projectId < 1 || at.projectId > MAX_ID) {
        return this.bareNotFound(reply);
      }
      const stamp = await this.readers.stamp(at.projectId);
      const view = await this.readers.view(at.projectId, stamp);
      if (view === null) return this.bareNotFound(reply);
      const site = this.siteOf(request, view, at, stamp);
      const address = parseAddress(at.path);
      const answer =
        view.project.access === 'invite' && this.login !== null
          ? await this.login.post(site, request, address, form)
          : null;
      return sendSiteAnswer(request, reply, answer ?? (await this.notFound(site)), 'private, no-store');
    } catch (error) {
      request.log.warn({ err: error }, 'the site could not answer');
      if (reply.sent) return reply;
      return reply
        .code(503)
        .header('retry-after', '2')
        .header('cache-control', 'no-store')
        .type(HTML)
        .send(UNAVAILABLE);
    }
  }

  /** Whether the request may read the site: a public one, or a private one with a live session. */
  async mayRead(site: SiteContext, request: FastifyRequest): Promise<boolean> {
    if (site.view.project.access !== 'invite') return true;
    return this.login !== null && (await this.login.admits(site, request));
  }

  /** The wall of private sites, for what checks readers outside `serve` (the MCP server); or null. */
  get wall(): SiteLogin | null {
    return this.login;
  }

  /** Adds what may answer an address that names nothing, tried in the order added. */
  onMissing(handler: MissingHandler): void {
    this.missing.push(handler);
  }

  /**
   * The site a request reached, as its pages see it, with the project's change stamp read first;
   * null when no project is there. For answers made outside `serve` (forms, src/site/site.forms.ts).
   */
  async siteFor(request: FastifyRequest, at: SiteRequest): Promise<SiteContext | null> {
    if (!validProjectId(at.projectId)) return null;
    const stamp = await this.readers.stamp(at.projectId);
    const view = await this.readers.view(at.projectId, stamp);
    return view === null ? null : this.siteOf(request, view, at, stamp);
  }

  /** Answers a request of a site; a failure is the site's own error page, never the API's envelope. */
  async serve(request: FastifyRequest, reply: FastifyReply, at: SiteRequest): Promise<FastifyReply> {
    try {
      return await this.serveAddress(request, reply, at);
    } catch (error) {
      return this.unavailable(request, reply, error);
    }
  }

  unavailable(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
    request.log.warn({ err: error }, 'the site could not answer');
    if (reply.sent) return reply;
    return reply
      .code(503)
      .header('retry-after', '2')
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'none'")
      .type(HTML)
      .send(UNAVAILABLE);
  }

  private async serveAddress(
    request: FastifyRequest,
    reply: FastifyReply,
    at: SiteRequest,
  ): Promise<FastifyReply> {
    if (!validProjectId(at.projectId)) return this.bareNotFound(reply);
    const stamp = await this.readers.stamp(at.projectId);
    const view = await this.readers.view(at.projectId, stamp);
    if (view === null) return this.bareNotFound(reply);
    const canonicalRoot = this.canonicalRoot(request, view, at);
    const cacheControl =
      view.project.access === 'public' ? this.config.siteCacheControl : 'private, no-store';
    const address = parseAddress(at.path);
    // A private site's wall (site.md §6, site.login.ts): its login addresses, and the session check of
    // every other address but robots.txt and the site's own assets, before anything is looked up in
    // the kept answers; past it, every reader of the site is given the same answers.
    const walled = view.project.access === 'invite' && address.kind !== 'robots' && address.kind !== 'asset';
    if (walled) {
      const site = this.context(view, at, stamp, canonicalRoot, this.derived(view).css);
      const gated =
        this.login === null
          ? await this.notFound(site)
          : await this.login.gate(site, request, address, at.path);
      if (gated !== null) return sendSiteAnswer(request, reply, gated, cacheControl);
    }
    const variant = this.variants.get(address.kind)?.(request) ?? '';
    const key = `${at.projectId}\n${canonicalRoot}\n${at.root}\n${at.path}\n${variant}`;
    const query = request.url.indexOf('?');
    // Search answers depend on the query, which the key leaves out: the search service keeps them.
    const cacheable =
      stamp !== null &&
      address.kind !== 'asset' &&
      address.kind !== 'search-json' &&
      (query === -1 || address.kind !== 'search');
    if (cacheable) {
      const kept = this.kept.get(key);
      if (kept && kept.stamp === stamp)
        return sendSiteAnswer(request, reply, kept.answer, cacheControl, kept.etag);
    }
    const site = this.context(view, at, stamp, canonicalRoot, this.derived(view).css);
    if (address.kind === 'asset') {
      return sendSiteAnswer(
        request,
        reply,
        this.asset(site, address.name) ?? (await this.notFound(site)),
        cacheControl,
      );
    }
    const ctx = { site, request };
    const made =
      (await this.answer(ctx, address)) ??
      (await this.whenMissing(ctx, address, at.path)) ??
      (await this.notFound(site));
    // Kept and sent as bytes: encoded once, not at every request that is served it.
    const answer = typeof made.body === 'string' ? { ...made, body: Buffer.from(made.body) } : made;
    const etag = strongTag(answer.body);
    if (cacheable && stamp !== null && answer.status !== 503) this.kept.set(key, { stamp, answer, etag });
    return sendSiteAnswer(request, reply, answer, cacheControl, etag);
  }

  /** The absolute root canonical addresses name: the project's host when it has one. */
  private canonicalRoot(request: FastifyRequest, view: ProjectView, at: SiteRequest): string {
    const origin = this.derived(view).origin;
    return origin === null
      ? `${request.protocol}://${request.host}${at.root}`
      : `${origin}${view.project.basePath}`;
  }

  private siteOf(
    request: FastifyRequest,
    view: ProjectView,
    at: SiteRequest,
    stamp: string | null,
  ): SiteContext {
    return this.context(view, at, stamp, this.canonicalRoot(request, view, at), this.derived(view).css);
  }

  /** What a project's view gives every request of its site, worked out once per view. */
  private derived(view: ProjectView): Derived {
    let derived = this.derivedOf.get(view);
    if (derived === undefined) {
      const project = view.project;
      const host = siteHostOf(project.host);
      const protocol = project.host !== null && /^http:\/\//i.test(project.host.trim()) ? 'http' : 'https';
      derived = {
        origin: host === null ? null : `${protocol}://${host}`,
        css: projectStylesheet(project.color, project.css),
      };
      this.derivedOf.set(view, derived);
    }
    return derived;
  }

  private context(
    view: ProjectView,
    at: SiteRequest,
    stamp: string | null,
    canonicalRoot: string,
    css: SiteAsset | null,
  ): SiteContext {
    return {
      view,
      root: at.root,
      canonicalRoot,
      stamp,
      assets: {
        css: `${at.root}/_site/${this.assets.css.name}`,
        js: `${at.root}/_site/${this.assets.js.name}`,
        projectCss: css === null ? null : `${at.root}/_site/${css.name}`,
      },
    };
  }

  private asset(site: SiteContext, name: string): SiteAnswer | null {
    const own = this.assets.get(name);
    if (own) return { status: 200, type: own.type, body: own.body, immutable: true };
    const css = this.derived(site.view).css;
    if (css !== null && css.name === name)
      return { status: 200, type: css.type, body: css.body, immutable: true };
    return null;
  }

  private async answer(ctx: AddressContext, address: SiteAddress): Promise<SiteAnswer | null> {
    const { site } = ctx;
    const versions = site.view.versions;
    switch (address.kind) {
      case 'landing': {
        const first = versions[0];
        const navigation = first ? await this.navigation(site, first.slug) : null;
        return this.html(
          LandingDocument({
            site,
            navigation,
            switchTargets: navigation ? this.switchTargets(site, navigation, null) : [],
          }),
        );
      }
      case 'latest': {
        const first = versions[0];
        if (!first) return null;
        const rest = address.rest.map(encodeURIComponent).join('/');
        return redirect(302, href(site, rest === '' ? `/${first.slug}` : `/${first.slug}/${rest}`));
      }
      case 'version': {
        const navigation = await this.navigation(site, address.version);
        const first = navigation?.order[0];
        return first ? redirect(302, href(site, first.path)) : null;
      }
      case 'section': {
        const navigation = await this.navigation(site, address.version);
        const first = navigation?.bySlug.get(address.section)?.first;
        return first ? redirect(302, href(site, first.path)) : null;
      }
      case 'robots':
        return this.robots(site);
      // A public site has no login; a private one's are answered before this (site.login.ts).
      case 'asset':
      case 'unknown':
      case 'login':
      case 'logout':
        return null;
      case 'page':
      case 'markdown':
      case 'reference':
      case 'changelog':
      case 'feed':
      case 'post':
      case 'search':
      case 'search-json':
      case 'llms':
      case 'sitemap':
      case 'reserved': {
        const handler = this.handlers.get(address.kind);
        return handler ? handler(ctx, address) : null;
      }
    }
  }

  private async whenMissing(
    ctx: AddressContext,
    address: SiteAddress,
    path: string,
  ): Promise<SiteAnswer | null> {
    for (const handler of this.missing) {
      const answer = await handler(ctx, address, path);
      if (answer !== null) return answer;
    }
    return null;
  }

  /** A published version's navigation by slug, or null when readers see no such version. */
  async navigation(site: SiteContext, slug: string): Promise<Navigation | null> {
    const version = site.view.versions.find((v) => v.slug === slug);
    if (!version) return null;
    return this.readers.navigation(site.view.project.id, version, site.stamp);
  }

  /** The switcher's entries: every published version, at the same page's address where it has one. */
  switchTargets(site: SiteContext, navigation: Navigation, pagePath: string | null): SwitchTarget[] {
    if (site.view.versions.length < 2) return [];
    const below = pagePath === null ? null : pagePath.slice(navigation.version.slug.length + 1);
    return site.view.versions.map((version) => ({
      version,
      path: below === null ? `/${version.slug}` : `/${version.slug}${below}`,
    }));
  }

  private robots(site: SiteContext): SiteAnswer {
    const body =
      site.view.project.access === 'invite'
        ? 'User-agent: *\nDisallow: /\n'
        : `User-agent: *\nAllow: /\n\nSitemap: ${site.canonicalRoot}/sitemap.xml\n`;
    return { status: 200, type: 'text/plain; charset=utf-8', body };
  }

  html(document: ReturnType<typeof PageDocument>, status: SiteAnswer['status'] = 200): SiteAnswer {
    return { status, type: HTML, body: htmlDocument(document) };
  }

  async notFound(site: SiteContext): Promise<SiteAnswer> {
    return this.html(NotFoundDocument({ site }), 404);
  }

  /** A site of no project: the not-found page without a project's header. */
  bareNotFound(reply: FastifyReply): FastifyReply {
    return reply
      .code(404)
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'none'")
      .type(HTML)
      .send(NO_SITE);
  }
}

// Ids are 32-bit on both databases: a larger one names no project (and PostgreSQL would refuse it).
const validProjectId = (id: number): boolean => Number.isSafeInteger(id) && id >= 1 && id <= MAX_ID;

/** The two answers that have no project to show: fixed documents, nothing of the request in them. */
const NO_SITE = htmlDocument(
  BareDocument({ title: 'Not found', text: 'No documentation site is at this address.' }),
);
const UNAVAILABLE = htmlDocument(
  BareDocument({
    title: 'Unavailable',
    text: 'The documentation cannot be shown right now. Try again in a moment.',
  }),
);

export const redirect = (status: 301 | 302, location: string): SiteAnswer => ({
  status,
  type: 'text/plain; charset=utf-8',
  body: `Redirecting to ${location}`,
  location,
});
