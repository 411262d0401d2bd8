import { InvalidFieldError } from '../errors.ts';

export const SLUG_PATTERN = '^[a-z0-9-]{1,100}$';
const SLUG_RE = new RegExp(SLUG_PATTERN);

export function assertSlug(field: string, slug: string): void {
  if (!SLUG_RE.test(slug)) {
    throw new InvalidFieldError(field, 'must be 1-100 lower-case letters, digits or hyphens');
  }
}

/** `latest` names the default version wherever a version is named, so no version may take it. */
export const RESERVED_VERSION_SLUGS: ReadonlySet<string> = new Set(['latest']);

export function assertVersionSlug(field: string, slug: string): void {
  assertSlug(field, slug);
  if (RESERVED_VERSION_SLUGS.has(slug)) {
    throw new InvalidFieldError(field, "must not be 'latest': it names the default version");
  }
}

/** `Über uns` → `uber-uns`. Never empty: a title with nothing sluggable gives `page` (or the fallback). */
export function slugify(title: string, fallback = 'untitled'): string {
  const folded = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/æ/gi, 'ae')
    .replace(/ø/gi, 'o')
    .replace(/œ/gi, 'oe')
    .replace(/đ/gi, 'd')
    .replace(/ł/gi, 'l')
    .toLowerCase();
  const slug = folded
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

/**
 * The first of `base`, `base-2`, `base-3`… not in `taken`. Callers pass the slugs of the parent that
 * start with `base`, and retry on a unique violation when a concurrent writer took the same one.
 */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
