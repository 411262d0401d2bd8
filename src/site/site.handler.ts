import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Navigation, ReadersService } from '../modules/readers/readers.service.ts';
import { LruCache } from '../shared/lru-cache.ts';
import { parseAddress, type SiteAddress } from './site.address.ts';
import { HTML, sendSiteAnswer, strongTag, type SiteAnswer } from './site.answer.ts';
import { encodedFor, type Encoded } from './site.encodings.ts';
import { SiteContextMaker } from './site.context-maker.ts';
import {
  type AddressContext,
  type AddressHandler,
  type MissingHandler,
  type SiteContext,
  type SiteRequest,
} from './site.context.ts';
import { sendNoSite, sendUnavailable } from './site.fallback.ts';
import type { FormFields, SiteLogin } from './site.login.ts';
import { htmlDocument } from './site.html.ts';
import { NotFoundDocument } from './templates/not-found.tsx';
import { PageDocument } from './templates/page.tsx';
import type { SwitchTarget } from './templates/version-switcher.tsx';

export type { AddressContext, AddressHandler, MissingHandler, SiteRequest } from './site.context.ts';

const MAX_ID = 2_147_483_647;

interface Kept {
  stamp: string;
  answer: SiteAnswer;
  etag: string;
  /** the answer brotli- or gzip-encoded, each made once, for the browsers that ask for it */
  encoded: Encoded;
}

const weight = (k: Kept): number =>
  k.answer.body.length + (k.encoded.br?.length ?? 0) + (k.encoded.gzip?.length ?? 0) + 200;

/**
 * The reader site (the specification's site.md, docs/decisions/0027-reader-site.md): an address below a
 * site's root → what readers may see there, rendered by the templates. Answers of addresses without a
 * query are kept under the project's change stamp, so a cached page costs a stamp read and a lookup,
 * and a change shows at the next request.
 */
export class SiteHandler {
  private readonly contexts = new SiteContextMaker();
  private readonly kept = new LruCache<Kept>(20_000, 64 * 1024 * 1024, weight);
  private readonly handlers = new Map<SiteAddress['kind'], AddressHandler>();
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
      const site = await this.siteFor(request, at);
      if (site === null) return this.bareNotFound(reply);
      const address = parseAddress(at.path);
      const answer =
        site.view.project.access === 'invite' && this.login !== null
          ? await this.login.post(site, request, address, form)
          : null;
      return sendSiteAnswer(request, reply, answer ?? (await this.notFound(site)), 'private, no-store');
    } catch (error) {
      request.log.warn({ err: error }, 'the site could not answer');
      if (reply.sent) return reply;
      return sendUnavailable(reply, false);
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
    return view === null ? null : this.contexts.of(request, view, at, stamp);
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
    return sendUnavailable(reply);
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
    const canonicalRoot = this.contexts.canonicalRoot(request, view, at);
    const cacheControl =
      view.project.access === 'public' ? this.config.siteCacheControl : 'private, no-store';
    const address = parseAddress(at.path);
    // A private site's wall (site.md §6, site.login.ts): its login addresses, and the session check of
    // every other address but robots.txt and the site's own assets, before anything is looked up in
    // the kept answers; past it, every reader of the site is given the same answers.
    const walled = view.project.access === 'invite' && address.kind !== 'robots' && address.kind !== 'asset';
    if (walled) {
      const site = this.contexts.context(view, at, stamp, canonicalRoot);
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
      if (kept && kept.stamp === stamp) return this.sendKept(request, reply, key, kept, cacheControl);
    }
    const site = this.contexts.context(view, at, stamp, canonicalRoot);
    if (address.kind === 'asset') {
      return sendSiteAnswer(
        request,
        reply,
        this.contexts.asset(site, address.name) ?? (await this.notFound(site)),
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
    if (!cacheable || stamp === null || answer.status === 503)
      return sendSiteAnswer(request, reply, answer, cacheControl, etag);
    const kept: Kept = { stamp, answer, etag, encoded: {} };
    this.kept.set(key, kept);
    return this.sendKept(request, reply, key, kept, cacheControl);
  }

  /** A kept answer, in the coding the request accepts (site.encodings.ts), encoded once per coding. */
  private async sendKept(
    request: FastifyRequest,
    reply: FastifyReply,
    key: string,
    kept: Kept,
    cacheControl: string,
  ): Promise<FastifyReply> {
    const encoded = await encodedFor(request, kept.answer, kept.encoded);
    // Weighed again with its new bytes, unless a change replaced it meanwhile.
    if (encoded?.made === true && this.kept.peek(key) === kept) this.kept.set(key, kept);
    return sendSiteAnswer(request, reply, kept.answer, cacheControl, kept.etag, encoded);
  }

  private async answer(ctx: AddressContext, address: SiteAddress): Promise<SiteAnswer | null> {
    switch (address.kind) {
      // A public site has no login; a private one's are answered before this (site.login.ts).
      case 'asset':
      case 'unknown':
      case 'login':
      case 'logout':
        return null;
      case 'landing':
      case 'latest':
      case 'version':
      case 'section':
      case 'robots':
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

  html(document: ReturnType<typeof PageDocument>, status: SiteAnswer['status'] = 200): SiteAnswer {
    return { status, type: HTML, body: htmlDocument(document) };
  }

  async notFound(site: SiteContext): Promise<SiteAnswer> {
    return this.html(NotFoundDocument({ site }), 404);
  }

  /** A site of no project: the not-found page without a project's header. */
  bareNotFound(reply: FastifyReply): FastifyReply {
    return sendNoSite(reply);
  }
}

// Ids are 32-bit on both databases: a larger one names no project (and PostgreSQL would refuse it).
const validProjectId = (id: number): boolean => Number.isSafeInteger(id) && id >= 1 && id <= MAX_ID;
