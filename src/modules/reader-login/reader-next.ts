/** The longest `next` kept; a longer one leads to the site's root. */
const MAX_NEXT = 2_000;

/**
 * Where a reader goes after signing in: a path below the site's root, or `/` (site.md §6: `next` only
 * ever leads to a path of the same site). Refused, whatever their encoding: anything that does not
 * start with one `/` (absolute and scheme-relative URLs, `/\host`), backslashes, control characters
 * and spaces, and `.`/`..` segments (which a browser would resolve out of the site's base path).
 */
export function safeNext(raw: unknown): string {
  if (typeof raw !== 'string' || raw === '' || raw.length > MAX_NEXT) return '/';
  if (!raw.startsWith('/') || raw.startsWith('//')) return '/';
  // Decoded until it no longer changes, so that no encoding of a refused form gets through.
  let decoded = raw;
  for (let round = 0; round < 4; round++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return '/';
    }
    if (next === decoded) break;
    decoded = next;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u0020\u007f]/.test(raw)) return '/';
  const path = decoded.split(/[?#]/, 1)[0] ?? '';
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(path) || path.startsWith('//')) return '/';
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) return '/';
  return raw;
}
