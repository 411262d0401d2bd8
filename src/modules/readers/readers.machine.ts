import { setImmediate } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { renderContent } from '../../content/index.ts';
import type { Database } from '../../db/schema.ts';
import { LruCache } from '../../shared/lru-cache.ts';
import { parseVariables, sourceDigest } from '../../shared/serialised.ts';
import {
  readersMachineRepository as repo,
  type SitemapPageRow,
  type SitemapPostRow,
  type SitemapReferenceRow,
} from './readers.machine.repository.ts';

export type { SitemapPageRow, SitemapPostRow, SitemapReferenceRow };

/** What the sitemap lists: what readers find in every published version, and the published posts. */
export interface SitemapRows {
  pages: SitemapPageRow[];
  references: SitemapReferenceRow[];
  posts: SitemapPostRow[];
}

/**
 * Characters of a page's contents read for its description. Its first paragraph almost always
 * starts well within them; reading and rendering no more keeps a description's cost the same for a
 * page of a megabyte as for a page of a line.
 */
export const OPENING_CHARS = 2_000;
/** How long descriptions are rendered before the event loop gets a turn (ms). */
const RENDER_SLICE_MS = 10;

/** A description from a page's HTML: its first paragraph as text, cut short (the site's `describe`). */
export type Describe = (html: string, fallback: string) => string;

/**
 * What the reader site's machine files (sitemap.xml, llms.txt) read: through the visibility fragments,
 * as the navigation and search do. The site keeps each file under the project's change stamp; the
 * pages' descriptions are kept here by what they are made of, so that after a change only the pages
 * whose openings changed are rendered again.
 */
export class ReaderMachine {
  private readonly described = new LruCache<string>(100_000, 32 * 1024 * 1024, (d) => d.length * 2 + 150);

  constructor(
    private readonly reader: Kysely<Database>,
    private readonly describe: Describe,
  ) {}

  async sitemap(projectId: number): Promise<SitemapRows> {
    return {
      pages: await repo.sitemapPages(this.reader, projectId),
      references: await repo.sitemapReferences(this.reader, projectId),
      posts: await repo.sitemapPosts(this.reader, projectId),
    };
  }

  /**
   * The description of each page readers find in a version, by page id: the first paragraph of its
   * published contents as text, cut short, or its title when it has none. It is taken from the
   * opening of the contents (OPENING_CHARS), rendered with the project's variables.
   */
  async descriptions(versionId: number, variables: string): Promise<Map<number, string>> {
    const rows = await repo.pageOpenings(this.reader, versionId, OPENING_CHARS);
    const variablesKey = sourceDigest(variables);
    let parsed: Readonly<Record<string, unknown>> | undefined;
    const descriptions = new Map<number, string>();
    let slice = performance.now();
    for (const row of rows) {
      const key = `${variablesKey}:${sourceDigest(`${row.title}\n${row.opening}`)}`;
      let description = this.described.get(key);
      if (description === undefined) {
        const ctx = { variables: (parsed ??= parseVariables(variables)) };
        const html = openingHtml(
          row.opening,
          OPENING_CHARS,
          (source) => renderContent(source, 'html', ctx) ?? '',
        );
        description = this.describe(html, row.title);
        this.described.set(key, description);
        if (performance.now() - slice > RENDER_SLICE_MS) {
          await setImmediate();
          slice = performance.now();
        }
      }
      descriptions.set(row.id, description);
    }
    return descriptions;
  }
}

/**
 * The HTML of as much of a page's opening as its first paragraph needs: the opening's first block,
 * then its first two, four… (each part ending at a blank line, where a paragraph ends), until the
 * HTML holds a paragraph or the opening is spent. Most pages open with a paragraph, so most cost
 * the render of one short block; none costs more than about twice the render of its opening.
 */
export function openingHtml(opening: string, chars: number, render: (source: string) => string): string {
  const source = openingSource(opening, chars);
  const ends = [...source.matchAll(BLANK_LINE)].map((match) => match.index);
  ends.push(source.length);
  for (let blocks = 1; ; blocks *= 2) {
    const end = ends[Math.min(blocks, ends.length) - 1] ?? source.length;
    const html = render(source.slice(0, end));
    if (end >= source.length || PARAGRAPH.test(html)) return html;
  }
}

const PARAGRAPH = /<p\b/;
const BLANK_LINE = /\n[ \t]*\n/g;
const PLUGIN_START = /^\$plugin\[/m;

/**
 * The part of an opening to render. Contents shorter than the opening are whole. Otherwise the
 * opening ends at its last blank line, so that the block it cut through (a paragraph, a block
 * plugin's JSON, which would show as text if cut) is left out; when it has none, before a block
 * plugin it starts, if any.
 */
export function openingSource(opening: string, chars: number): string {
  if (opening.length < chars) return opening;
  let end = -1;
  for (const match of opening.matchAll(BLANK_LINE)) end = match.index;
  if (end > 0) return opening.slice(0, end);
  const plugin = PLUGIN_START.exec(opening);
  return plugin ? opening.slice(0, plugin.index) : opening;
}
