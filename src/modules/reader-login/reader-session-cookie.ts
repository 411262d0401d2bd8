import { createHmac, timingSafeEqual } from 'node:crypto';

/** The cookie a private site's session lives in. */
export const SESSION_COOKIE = 'quire_reader';

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** `<session id>.<HMAC-SHA256 of the project and the id>`, base64url: signed for one project's site. */
export function signedSession(key: Buffer, projectId: number, sessionId: string): string {
  return `${sessionId}.${signature(key, projectId, sessionId)}`;
}

/** The session id a cookie value names for a project, or null when it is not one we signed for it. */
export function sessionIdOf(key: Buffer, projectId: number, value: string | undefined): string | null {
  if (value === undefined) return null;
  const dot = value.indexOf('.');
  const id = value.slice(0, dot);
  if (dot === -1 || !SESSION_ID.test(id)) return null;
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  const expected = Buffer.from(signature(key, projectId, id), 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : null;
}

const signature = (key: Buffer, projectId: number, id: string): string =>
  createHmac('sha256', key).update(`${projectId}.${id}`).digest('base64url');

/** One cookie's value from a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface CookieSite {
  /** the site's root path: `''`, `/base` or `/sites/7` */
  root: string;
  secure: boolean;
}

/** The Set-Cookie of a session: HttpOnly, SameSite=Lax, Secure on HTTPS, Path the site's root. */
export function sessionCookie(site: CookieSite, value: string, maxAgeSeconds: number): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    `Path=${site.root === '' ? '/' : site.root}`,
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(site.secure ? ['Secure'] : []),
  ].join('; ');
}

/** The Set-Cookie that removes the session cookie. */
export const clearedCookie = (site: CookieSite): string => sessionCookie(site, '', 0);
