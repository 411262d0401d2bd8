/**
 * What an address below a site's root names (the specification's site.md §2). The site's own names win
 * over a version slug of the same name: `latest`, `changelog`, `search`, `login`, `logout`, `mcp`,
 * `_site` and the machine files. Segments are percent-decoded; one that does not decode (invalid
 * UTF-8, a stray `%`) names nothing.
 */
export type SiteAddress =
  | { kind: 'landing' }
  | { kind: 'asset'; name: string }
  | { kind: 'search' }
  | { kind: 'search-json' }
  | { kind: 'llms' }
  | { kind: 'sitemap' }
  | { kind: 'robots' }
  | { kind: 'latest'; rest: string[] }
  | { kind: 'changelog'; changelog: string }
  | { kind: 'feed'; changelog: string }
  | { kind: 'post'; changelog: string; post: string }
  | { kind: 'login'; step: 'form' | 'verify' | 'jwt' }
  | { kind: 'logout' }
  | { kind: 'reserved'; name: string }
  | { kind: 'version'; version: string }
  | { kind: 'section'; version: string; section: string }
  | { kind: 'page'; version: string; section: string; page: string }
  | { kind: 'markdown'; version: string; section: string; page: string }
  | { kind: 'reference'; version: string; reference: string }
  | { kind: 'unknown' };

/** Names the site keeps for itself at its root (the README lists them). */
export const RESERVED_NAMES = [
  'latest',
  'changelog',
  'search',
  'login',
  'logout',
  'mcp',
  '_site',
  'llms.txt',
  'sitemap.xml',
  'robots.txt',
] as const;

/** The decoded segments of a path, or null when one does not decode or names `.`/`..`. */
export function segmentsOf(path: string): string[] | null {
  const segments: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '.' || segment === '..' || segment.includes('/') || segment.includes('\0')) return null;
    segments.push(segment);
  }
  return segments;
}

export function parseAddress(path: string): SiteAddress {
  const segments = segmentsOf(path);
  if (segments === null) return { kind: 'unknown' };
  const [first, second, third, fourth] = segments;
  const count = segments.length;
  if (first === undefined) return { kind: 'landing' };
  switch (first) {
    case '_site':
      return count === 2 && second !== undefined ? { kind: 'asset', name: second } : { kind: 'unknown' };
    case 'search':
      if (count === 1) return { kind: 'search' };
      return count === 2 && second === 'results.json' ? { kind: 'search-json' } : { kind: 'unknown' };
    case 'llms.txt':
      return count === 1 ? { kind: 'llms' } : { kind: 'unknown' };
    case 'sitemap.xml':
      return count === 1 ? { kind: 'sitemap' } : { kind: 'unknown' };
    case 'robots.txt':
      return count === 1 ? { kind: 'robots' } : { kind: 'unknown' };
    case 'latest':
      return { kind: 'latest', rest: segments.slice(1) };
    case 'changelog':
      if (second === undefined || count > 3) return { kind: 'unknown' };
      if (third === undefined) return { kind: 'changelog', changelog: second };
      return third === 'feed.xml'
        ? { kind: 'feed', changelog: second }
        : { kind: 'post', changelog: second, post: third };
    case 'login':
      if (count === 1) return { kind: 'login', step: 'form' };
      if (count === 2 && (second === 'verify' || second === 'jwt')) return { kind: 'login', step: second };
      return { kind: 'unknown' };
    case 'logout':
      return count === 1 ? { kind: 'logout' } : { kind: 'unknown' };
    case 'mcp':
      return { kind: 'reserved', name: first };
    default:
      break;
  }
  if (count === 1) return { kind: 'version', version: first };
  if (second === undefined) return { kind: 'unknown' };
  if (second === 'ref' && count === 3 && third !== undefined) {
    return { kind: 'reference', version: first, reference: third };
  }
  if (count === 2) return { kind: 'section', version: first, section: second };
  if (count === 3 && third !== undefined) {
    if (third.endsWith('.md') && third.length > 3) {
      return { kind: 'markdown', version: first, section: second, page: third.slice(0, -3) };
    }
    return { kind: 'page', version: first, section: second, page: third };
  }
  void fourth;
  return { kind: 'unknown' };
}
