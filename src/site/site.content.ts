import { escapeAttribute } from '../content/html-allowlist.ts';
import type { TocEntry } from './templates/page.tsx';

const HEADING = /<h([23])\b[^>]*\bid="([^"]+)"[^>]*>([\s\S]*?)<\/h\1>/g;
const PARAGRAPH = /<p\b[^>]*>([\s\S]*?)<\/p>/;
const TAG = /<[^>]*>/g;
const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  '#39': "'",
  apos: "'",
  nbsp: ' ',
};

/** The text of a fragment of the engine's HTML: tags dropped, the entities it writes decoded. */
export function textOf(html: string): string {
  return html
    .replace(TAG, '')
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_m, name: string) => ENTITIES[name] ?? '')
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_m, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The `h2` and `h3` headings of a page's HTML, with the anchors the engine gave them: the table of
 * contents. The HTML is the engine's sanitised output, whose headings it wrote itself.
 */
export function tableOfContents(html: string): TocEntry[] {
  const entries: TocEntry[] = [];
  for (const match of html.matchAll(HEADING)) {
    const [, level, id, inner] = match;
    if (id === undefined || inner === undefined) continue;
    const text = textOf(inner);
    if (text !== '') entries.push({ level: level === '2' ? 2 : 3, id: textOf(id), text });
  }
  return entries;
}

/** A page's description: its first paragraph as text, cut at about 160 characters on a word. */
export function describe(html: string, fallback: string): string {
  const paragraph = PARAGRAPH.exec(html)?.[1];
  const text = paragraph === undefined ? '' : textOf(paragraph);
  return cutAt(text === '' ? fallback : text, 160);
}

export function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const SITE_RELATIVE_HREF = /\shref="\/(?![/\\])/g;

/**
 * Links of a page's contents on the site: contents name other pages as `/<section>/<page>`, with no
 * version (darkdown.md §3), so such a link leads below the page's version on the site (`prefix`,
 * e.g. `/sites/7/v2`). The HTML is the engine's sanitised output, which writes every attribute in
 * double quotes; the prefix is written escaped as an attribute value.
 */
export function siteLinks(html: string, prefix: string): string {
  const escaped = escapeAttribute(prefix);
  return html.replace(SITE_RELATIVE_HREF, (match) => `${match.slice(0, -1)}${escaped}/`);
}
