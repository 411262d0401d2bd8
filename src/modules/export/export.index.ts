import { safeSegment, SiblingNames } from './archive-names.ts';
import type { ExportCategory, ExportPage, ExportSection } from './export.repository.ts';

/** Page files go beside `settings.json` in a section's folder: no page may take that name. */
export const SETTINGS = 'settings.json';

export /** One file of a section's index, in archive order: a page (its contents read later) or a category. */
type IndexFile =
  | { kind: 'page'; path: string; page: ExportPage }
  | { kind: 'category'; path: string; category: ExportCategory };

/**
 * A section's index in archive order: its categories and top-level pages numbered by position, each
 * page's children in a folder named as the page's file is (without its number), depth first.
 */
export function sectionIndex(
  dir: string,
  section: ExportSection,
  categories: readonly ExportCategory[],
  pages: readonly ExportPage[],
): IndexFile[] {
  const own = pages.filter((p) => p.documentation_id === section.id);
  const live = new Set(own.map((p) => p.id));
  const children = new Map<number | null, ExportPage[]>();
  for (const page of own) {
    // A page whose parent is gone (deleted) stands at the top of the index.
    const parent = page.parent_page_id !== null && live.has(page.parent_page_id) ? page.parent_page_id : null;
    const list = children.get(parent) ?? [];
    list.push(page);
    children.set(parent, list);
  }
  const top: Array<{
    position: number;
    id: number;
    entry: ExportCategory | ExportPage;
    kind: 'category' | 'page';
  }> = [
    ...categories
      .filter((c) => c.documentation_id === section.id)
      .map((c) => ({ position: c.position, id: c.id, entry: c, kind: 'category' as const })),
    ...(children.get(null) ?? []).map((p) => ({
      position: p.position,
      id: p.id,
      entry: p,
      kind: 'page' as const,
    })),
  ].sort(
    (a, b) => a.position - b.position || (a.kind === b.kind ? a.id - b.id : a.kind === 'category' ? -1 : 1),
  );

  const files: IndexFile[] = [];
  const walk = (
    folder: string,
    entries: ReadonlyArray<{ kind: 'category' | 'page'; entry: ExportCategory | ExportPage }>,
    reserved: string[],
  ): void => {
    const names = new SiblingNames(reserved);
    for (const [index, { kind, entry }] of entries.entries()) {
      const number = index + 1;
      if (kind === 'category') {
        const category = entry;
        files.push({
          kind,
          path: `${folder}/${number} ${safeSegment(category.title, 'category')}.md`,
          category,
        });
        continue;
      }
      const page = entry as ExportPage;
      const base = names.claim(safeSegment(page.title, 'page'));
      files.push({ kind, path: `${folder}/${number} ${base}.md`, page });
      const below = children.get(page.id);
      if (below !== undefined && below.length > 0) {
        walk(
          `${folder}/${base}`,
          below.map((p) => ({ kind: 'page' as const, entry: p })),
          [],
        );
      }
    }
  };
  walk(dir, top, [SETTINGS]);
  return files;
}
