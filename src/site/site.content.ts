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

/** A link of the engine's HTML to an address of the same host: `href="/…"`, not `href="//…"`. */
const ROOT_RELATIVE_LINK = /(<a\b[^>]*?\shref=")\/(?!\/)/g;

/**
 * Links in contents name `/<section>/<page>`, with no version and no site root (darkdown.md §3),
 * so that the same contents serve every version and every host. On the site they lead into the
 * page's own version below the site's root: `prefix` is `{root}/{version}`.
 */
export function siteLinks(html: string, prefix: string): string {
  return html.replace(ROOT_RELATIVE_LINK, (_match, opening: string) => `${opening}${prefix}/`);
}
