import type { MarkdocLinks } from '../../content/markdoc-renderer.ts';
import type { PageFileRow } from './markdoc-links.repository.ts';

/**
 * Where each page's file lies in the platform's Git layout, relative to its version's folder: its
 * section's folder, then the folders of its ancestors (`guide/install/on-linux.md`), each named by
 * slug. The importer reads a page's slug from its file's name and its address as `/section/slug`.
 */
export function pageFilePaths(rows: readonly PageFileRow[]): Map<number, string> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const paths = new Map<number, string>();
  const pathOf = (row: PageFileRow, seen: Set<number>): string => {
    const known = paths.get(row.id);
    if (known !== undefined) return known;
    const parent = row.parent_page_id === null ? undefined : byId.get(row.parent_page_id);
    const folder =
      parent === undefined || seen.has(parent.id)
        ? row.documentation_slug
        : pathOf(parent, seen.add(row.id)).slice(0, -3);
    const path = `${folder}/${row.slug}.md`;
    paths.set(row.id, path);
    return path;
  };
  for (const row of rows) pathOf(row, new Set());
  return paths;
}

/** Every page's file by its address without the leading slash (`guide/on-linux`). */
export function pageAddresses(
  rows: readonly PageFileRow[],
  paths: ReadonlyMap<number, string>,
): Map<string, string> {
  const pages = new Map<string, string>();
  for (const row of rows) {
    const path = paths.get(row.id);
    if (path !== undefined) pages.set(`${row.documentation_slug}/${row.slug}`, path);
  }
  return pages;
}

/** The links of one page's Markdoc: its own file, and every page's by its address. */
export function markdocLinks(rows: readonly PageFileRow[], pageId: number): MarkdocLinks {
  const paths = pageFilePaths(rows);
  return { file: paths.get(pageId) ?? 'page.md', pages: pageAddresses(rows, paths) };
}
