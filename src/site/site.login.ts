import type { FastifyRequest } from 'fastify';
import type { ReaderLoginService, Started } from '../modules/reader-login/reader-login.service.ts';
import { readerMcpToken, sessionOfMcpToken } from '../modules/reader-login/reader-mcp-token.ts';
import { safeNext } from '../modules/reader-login/reader-next.ts';
import {
  clearedCookie,
  cookieValue,
  SESSION_COOKIE,
  sessionCookie,
  type CookieSite,
} from '../modules/reader-login/reader-session-cookie.ts';
import type { SiteKeys } from '../modules/reader-login/site-keys.ts';
import type { SiteAddress } from './site.address.ts';
import { HTML, type SiteAnswer } from './site.answer.ts';
import type { SiteContext } from './site.context.ts';
import { htmlDocument } from './site.html.ts';
import { BareDocument } from './templates/bare.tsx';
import { LoginDocument, type LoginProps } from './templates/login.tsx';

/** A form's fields, or null when the body was not a form of a sensible size. */
export type FormFields = URLSearchParams | null;

const REFUSED_LINK =
  'This sign-in link does not work: it may have been used already or have expired. Ask for a new one below.';
const REFUSED_TOKEN =
  'Your sign-in from the application was refused. Sign in again there, or ask for a link below.';

/** Answers that must leave the browser with the page alone: no Referer that could carry a token. */
const PRIVATE_HEADERS = { 'referrer-policy': 'no-referrer' } as const;

/**
 * The wall around a private site (site.md §6): its login pages, its sign-out, and for every other
 * address the check of the reader's session, at every request.
 */
export class SiteLogin {
  constructor(
    private readonly logins: ReaderLoginService,
    private readonly keys: SiteKeys,
  ) {}

  /**
   * What a private site answers before its content: a login address, a redirect to the login page
   * without a live session, 503 without a server secret; null when the reader may go on.
   */
  async gate(
    site: SiteContext,
    request: FastifyRequest,
    address: SiteAddress,
    path: string,
  ): Promise<SiteAnswer | null> {
    if (this.keys.missing !== null) return unavailable();
    const query = queryOf(request.url);
    const cookieSite = this.cookieSite(site, request);
    const at = this.loginSite(site, request);
    if (address.kind === 'login') {
      const next = safeNext(query.get('next'));
      const token = query.get('token') ?? '';
      switch (address.step) {
        case 'form':
          return this.page(site, { next, error: null }, 200);
        case 'verify':
          return this.started(site, cookieSite, next, await this.logins.verifyLink(at, token), REFUSED_LINK);
        case 'jwt':
          return this.started(site, cookieSite, next, await this.logins.jwtLogin(at, token), REFUSED_TOKEN);
      }
    }
    const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE);
    const state = await this.logins.check(site.view.project.id, cookie);
    if (state === 'valid') return null;
    const below = `${path}${query.size > 0 ? `?${request.url.slice(request.url.indexOf('?') + 1)}` : ''}`;
    const next = safeNext(below);
    const location = `${site.root}/login${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}`;
    return {
      status: 302,
      type: 'text/plain; charset=utf-8',
      body: `Redirecting to ${location}`,
      location,
      ...(state === 'ended' ? { headers: { 'set-cookie': clearedCookie(cookieSite) } } : {}),
    };
  }

  /** Whether the request carries a live reader session of this private site (a form posted to it). */
  async admits(site: SiteContext, request: FastifyRequest): Promise<boolean> {
    if (this.keys.missing !== null) return false;
    const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE);
    return (await this.logins.check(site.view.project.id, cookie)) === 'valid';
  }

  /** Whether the server secret is there: without it no reader can be signed in (site.md §6: 503). */
  get ready(): boolean {
    return this.keys.missing === null;
  }

  /**
   * Whether a bearer token names a live reader session of this private site: the token a signed-in
   * reader is given for the site's MCP server (site.mcp.ts).
   */
  async admitsBearer(site: SiteContext, token: string): Promise<boolean> {
    if (this.keys.missing !== null) return false;
    const cookie = sessionOfMcpToken(this.keys.session(), site.view.project.id, token);
    return cookie !== null && (await this.logins.check(site.view.project.id, cookie)) === 'valid';
  }

  /** The MCP bearer token of the request's live session, or null without one. */
  async mcpToken(site: SiteContext, request: FastifyRequest): Promise<string | null> {
    if (!(await this.admits(site, request))) return null;
    const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE);
    return readerMcpToken(this.keys.session(), site.view.project.id, cookie);
  }

  /** A form sent to a private site: `POST {site}/login` asks for a link, `POST {site}/logout` ends the session. */
  async post(
    site: SiteContext,
    request: FastifyRequest,
    address: SiteAddress,
    form: FormFields,
  ): Promise<SiteAnswer | null> {
    if (this.keys.missing !== null) return unavailable();
    const cookieSite = this.cookieSite(site, request);
    if (address.kind === 'logout') {
      await this.logins.logout(
        this.loginSite(site, request),
        cookieValue(request.headers.cookie, SESSION_COOKIE),
      );
      const location = `${site.root}/login`;
      return {
        status: 302,
        type: 'text/plain; charset=utf-8',
        body: `Redirecting to ${location}`,
        location,
        headers: { 'set-cookie': clearedCookie(cookieSite) },
      };
    }
    if (address.kind !== 'login' || address.step !== 'form') return null;
    const next = safeNext(form?.get('next'));
    const email = form?.get('email') ?? '';
    const outcome = await this.logins.requestLink(this.loginSite(site, request), email, next);
    switch (outcome) {
      case 'sent':
        return this.page(site, { next, error: null, sent: true }, 200);
      case 'invalid':
        return this.page(
          site,
          { next, email: email.slice(0, 254), error: 'Enter an e-mail address, like name@example.com.' },
          400,
        );
      case 'limited':
        return {
          ...this.page(
            site,
            { next, error: 'Too many links were asked for from here. Try again in 15 minutes.' },
            429,
          ),
          headers: { ...PRIVATE_HEADERS, 'retry-after': '900' },
        };
    }
  }

  private started(
    site: SiteContext,
    cookieSite: CookieSite,
    next: string,
    started: Started,
    refused: string,
  ): SiteAnswer {
    if (!started.ok) return this.page(site, { next, error: refused }, 400);
    const location = `${site.root}${next}`;
    return {
      status: 302,
      type: 'text/plain; charset=utf-8',
      body: `Redirecting to ${location}`,
      location,
      headers: {
        ...PRIVATE_HEADERS,
        'set-cookie': sessionCookie(cookieSite, started.cookie, started.maxAgeSeconds),
      },
    };
  }

  private page(site: SiteContext, props: Omit<LoginProps, 'site'>, status: 200 | 400 | 429): SiteAnswer {
    return {
      status,
      type: HTML,
      body: htmlDocument(LoginDocument({ site, ...props })),
      headers: PRIVATE_HEADERS,
    };
  }

  private cookieSite(site: SiteContext, request: FastifyRequest): CookieSite {
    return { root: site.root, secure: request.protocol === 'https' };
  }

  private loginSite(site: SiteContext, request: FastifyRequest) {
    return {
      projectId: site.view.project.id,
      // The project's host when it has one: a request's Host header never chooses where a link leads.
      origin: site.canonicalRoot,
      ipAddress: request.ip,
    };
  }
}

const queryOf = (url: string): URLSearchParams => {
  const at = url.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
};

const unavailable = (): SiteAnswer => ({
  status: 503,
  type: HTML,
  body: htmlDocument(
    BareDocument({
      title: 'Unavailable',
      text: 'This documentation is private, and its server is not set up to sign readers in yet.',
    }),
  ),
  headers: { 'retry-after': '3600' },
});
