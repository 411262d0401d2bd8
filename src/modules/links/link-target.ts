/**
 * What a link's address names, before anything is looked up: a place inside the documentation (a
 * path, or a heading of the same page), an address elsewhere, or nothing this report can check.
 * Nothing here fetches anything or asks a resolver: an external address is judged by its form alone.
 */
export type LinkAddress =
  /** `/a/b`, `/a/b/c`, …: the path's segments, decoded, and the fragment (null: none) */
  | { kind: 'path'; segments: string[]; fragment: string | null }
  /** `#heading`: a heading of the page the link is on */
  | { kind: 'fragment'; fragment: string }
  /** another site or an application (`https:`, `mailto:`, `//host`); `problem` when it is malformed */
  | { kind: 'external'; fragment: string | null; problem: string | null }
  /**
   * A relative address (`setup`, `../guides/setup`), an empty one, a bare query: which page it names
   * depends on the reader site's layout, not on the documentation, so it is not checked
   */
  | { kind: 'unchecked' };

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
/** Schemes whose addresses are `scheme://host…` (WHATWG's special schemes but `file`). */
const HOST_SCHEMES = new Set(['http', 'https', 'ftp', 'ws', 'wss']);
/** An address part of `mailto:`: something, one `@`, something; no spaces. */
const MAIL_ADDRESS = /^[^\s@]+@[^\s@]+$/;
/** A host written where a link needs a scheme: a browser reads `www.x.com/a` as a relative path. */
const MISSING_SCHEME = /^(?:www\.[^/]+\.|(?:https?|ftp)\/\/)/i;

/** Percent-decoded when that is possible; a malformed escape leaves the text as written. */
function decoded(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function splitFragment(href: string): { rest: string; fragment: string | null } {
  const hash = href.indexOf('#');
  if (hash < 0) return { rest: href, fragment: null };
  const fragment = decoded(href.slice(hash + 1));
  return { rest: href.slice(0, hash), fragment: fragment === '' ? null : fragment };
}

function hostProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it is not a valid URL';
  }
  return parsed.hostname === '' ? 'it names no host' : null;
}

/** Why an address with a scheme is malformed, or null when its form is sound. */
function schemeProblem(scheme: string, href: string): string | null {
  const rest = href.slice(scheme.length + 1);
  if (HOST_SCHEMES.has(scheme)) {
    if (!rest.startsWith('//')) return `'${scheme}:' must be followed by '//' and a host`;
    return hostProblem(href);
  }
  if (scheme === 'mailto') {
    const addresses = decoded(rest.split('?')[0] ?? '')
      .split(',')
      .map((address) => address.trim());
    return addresses.some((address) => !MAIL_ADDRESS.test(address))
      ? 'it is not a valid email address'
      : null;
  }
  if (scheme === 'tel') return /\d/.test(rest) ? null : 'it holds no telephone number';
  return rest.trim() === '' ? `nothing follows '${scheme}:'` : null;
}

/** Reads a link's address (`href` as the link gives it). */
export function readAddress(href: string): LinkAddress {
  const trimmed = href.trim();
  if (trimmed === '') return { kind: 'unchecked' };
  const { rest, fragment } = splitFragment(trimmed);
  if (trimmed.startsWith('#')) {
    return fragment === null ? { kind: 'unchecked' } : { kind: 'fragment', fragment };
  }
  if (trimmed.startsWith('//')) {
    return { kind: 'external', fragment, problem: hostProblem(`https:${trimmed}`) };
  }
  if (trimmed.startsWith('/')) {
    const path = rest.split('?')[0] ?? '';
    const segments = path.slice(1).split('/').map(decoded);
    // `/guides/setup/` names the same page as `/guides/setup`.
    if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
    return { kind: 'path', segments, fragment };
  }
  const scheme = SCHEME.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme !== undefined) return { kind: 'external', fragment, problem: schemeProblem(scheme, trimmed) };
  if (MISSING_SCHEME.test(trimmed)) {
    return { kind: 'external', fragment, problem: 'the address has no scheme (such as https://)' };
  }
  return { kind: 'unchecked' };
}
