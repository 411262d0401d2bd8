import type {
  ReaderCategoryRow,
  ReaderPageRow,
  ReaderReferenceRow,
  ReaderSectionRow,
  ReaderVersionRow,
} from './readers.repository.ts';

/** A page in the navigation, with its sub-pages. `path` is the page's address below the site's root. */
export interface NavPage {
  id: number;
  title: string;
  slug: string;
  path: string;
  sectionId: number;
  children: NavPage[];
}

/** What a section lists, in index order: pages, and categories grouping pages. */
export type NavItem =
  { kind: 'page'; page: NavPage } | { kind: 'category'; id: number; title: string; pages: NavPage[] };

export interface NavSection {
  id: number;
  title: string;
  slug: string;
  items: NavItem[];
  /** the first page of the section in index order, or null when readers see none */
  first: NavPage | null;
}

/** A version's navigation: sections, references, and every page in index order (previous/next). */
export interface Navigation {
  version: ReaderVersionRow;
  sections: NavSection[];
  references: Array<ReaderReferenceRow & { path: string }>;
  /** every page readers can find, in index order: section by section, depth first */
  order: NavPage[];
  /** pages by id */
  byId: ReadonlyMap<number, NavPage>;
  /** a sub-page's parent, by the sub-page's id */
  parentOf: ReadonlyMap<number, NavPage>;
  /** a page's place in `order`, by its id */
  indexOf: ReadonlyMap<number, number>;
  /** sections by slug */
  bySlug: ReadonlyMap<string, NavSection>;
  /** what it weighs in memory, roughly (bytes), for the cache */
  weight: number;
}

/**
 * Nests a version's visible pages: under their parent page when readers see it, else under their
 * category, else at the section's top level; categories and pages share one index order.
 */
export function buildNavigation(
  version: ReaderVersionRow,
  sections: ReaderSectionRow[],
  categories: ReaderCategoryRow[],
  pages: ReaderPageRow[],
  references: ReaderReferenceRow[],
): Navigation {
  const sectionById = new Map(sections.map((s) => [s.id, s]));
  const byId = new Map<number, NavPage>();
  for (const row of pages) {
    const section = sectionById.get(row.documentation_id);
    if (!section) continue;
    byId.set(row.id, {
      id: row.id,
      title: row.title,
      slug: row.slug,
      path: `/${version.slug}/${section.slug}/${row.slug}`,
      sectionId: section.id,
      children: [],
    });
  }
  type Entry = { position: number; item: NavItem };
  const entries = new Map<number, Entry[]>(sections.map((s) => [s.id, []]));
  const categoryItems = new Map<number, Extract<NavItem, { kind: 'category' }>>();
  const parentOf = new Map<number, NavPage>();
  for (const category of categories) {
    const item = {
      kind: 'category' as const,
      id: category.id,
      title: category.title,
      pages: [] as NavPage[],
    };
    categoryItems.set(category.id, item);
    entries.get(category.documentation_id)?.push({ position: category.position, item });
  }
  for (const row of pages) {
    const page = byId.get(row.id);
    if (!page) continue;
    const parent = row.parent_page_id === null ? undefined : byId.get(row.parent_page_id);
    if (parent && parent.sectionId === page.sectionId) {
      parent.children.push(page);
      parentOf.set(page.id, parent);
      continue;
    }
    const category = row.category_id === null ? undefined : categoryItems.get(row.category_id);
    if (category) category.pages.push(page);
    else entries.get(page.sectionId)?.push({ position: row.position, item: { kind: 'page', page } });
  }
  const order: NavPage[] = [];
  const walk = (list: NavPage[]) => {
    for (const page of list) {
      order.push(page);
      walk(page.children);
    }
  };
  let weight = 200;
  const navSections: NavSection[] = sections.map((section) => {
    const items = (entries.get(section.id) ?? [])
      .sort((a, b) => a.position - b.position)
      .map((entry) => entry.item)
      // A category readers see no page of is not shown.
      .filter((item) => item.kind === 'page' || item.pages.length > 0);
    const start = order.length;
    for (const item of items) walk(item.kind === 'page' ? [item.page] : item.pages);
    weight += 100 + section.title.length * 2;
    return { id: section.id, title: section.title, slug: section.slug, items, first: order[start] ?? null };
  });
  for (const page of order) weight += 150 + (page.title.length + page.path.length) * 2;
  return {
    version,
    sections: navSections,
    references: references.map((r) => ({ ...r, path: `/${version.slug}/ref/${r.slug}` })),
    order,
    byId,
    parentOf,
    indexOf: new Map(order.map((page, index) => [page.id, index])),
    bySlug: new Map(navSections.map((s) => [s.slug, s])),
    weight,
  };
}
