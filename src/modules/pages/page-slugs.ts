import type { Executor } from '../../db/executor.ts';
import { pickSlug, slugConflict } from '../../db/siblings.ts';
import { UniqueViolationError } from '../../errors.ts';
import { slugify } from '../../shared/slug.ts';
import type { PageView } from './pages.reads.repository.ts';

/**
 * The slug for a new title: generated and unique in the section. The page's own slug is no collision,
 * so a slug already of the new title's family (`base`, `base-2`…) is kept and an unchanged title
 * keeps its slug.
 */
export async function regeneratedSlug(db: Executor, page: PageView, title: string): Promise<string> {
  // An unchanged title keeps the slug, even one picked by hand: a client that always sends the
  // title must not move the page.
  if (title === page.title) return page.slug;
  const base = slugify(title, 'page');
  const family = new RegExp(`^${base}(-([2-9]|[1-9][0-9]+))?$`);
  if (family.test(page.slug)) return page.slug;
  return pickSlug(db, 'pages', page.documentation_id, {
    kind: 'page',
    title,
    fallback: 'page',
    self: page.id,
  });
}

/** A unique violation on a slug the caller chose is their conflict (409), not a race to retry. */
export async function explicitSlug<T>(explicit: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueViolationError && explicit !== undefined) throw slugConflict('page', explicit);
    throw error;
  }
}
