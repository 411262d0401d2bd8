import { buildZip, type ZipEntrySpec } from './zip.ts';

/** A word only the pages of stagedArchive hold, for search to find or not. */
export const STAGED_WORD = 'quokkastaged';

/**
 * An export archive of one published version `Big` (slug `big`) whose section holds `pages` listed,
 * published pages that mention STAGED_WORD, stored rather than deflated; `extra` files after them.
 * Large enough, from a few hundred pages, for SQLite to write it in several steps.
 */
export function stagedArchive(pages: number, extra: ZipEntrySpec[] = []): Buffer {
  const body = `A paragraph of an imported page about the ${STAGED_WORD}, written as a page is.\n`.repeat(30);
  const entries: ZipEntrySpec[] = [
    {
      name: 'manifest.json',
      data: JSON.stringify({
        kind: 'quire-export',
        formatVersion: 2,
        versions: [{ folder: 'Big', name: 'Big', slug: 'big', published: true }],
      }),
    },
    { name: 'Big/Guides/settings.json', data: '{"title":"Guides","published":true}' },
  ];
  for (let n = 1; n <= pages; n++) {
    entries.push({
      name: `Big/Guides/${n} Page ${n}.md`,
      data: `---\ntype: page\ntitle: Page ${n}\nslug: page-${n}\n---published\n\n# Part ${n}\n\n${body}\n`,
      compress: false,
    });
  }
  return buildZip([...entries, ...extra]);
}
