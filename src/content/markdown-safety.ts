import type { Env, Token } from 'markdown-it';
import { UNSAFE_LINK_TOKEN, type UnsafeLinkMeta } from './link-safety.ts';
import { dropsContent, sanitizeHtmlTag } from './sanitiser.ts';
import type { Replacement } from './source-lines.ts';

/**
 * The edits that keep Markdown output safe for a reader that renders its HTML and follows its links
 * (docs/decisions/0008-markdown-output-safety.md): inline HTML through the allowlist, and the openers of
 * links to refused URLs written as character references, so they are the text HTML output shows.
 */

const TAG = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)/;

/**
 * The edit for the inline HTML token at `index`, or null when the allowlist keeps it as written. A
 * dropped `<script>` (or another element whose content goes with it) takes what it encloses, up to its
 * end tag in the same paragraph. Returns the index of the last token the edit covers.
 */
export function inlineHtmlEdit(
  children: readonly Token[],
  index: number,
): { replacement: Replacement; last: number } | null {
  const token = children[index];
  if (token === undefined) return null;
  const clean = sanitizeHtmlTag(token.content);
  if (clean === token.content) return null;
  const replacement: Replacement = { raw: token.content, text: clean, required: true };
  const [, closing = '', name = ''] = TAG.exec(token.content) ?? [];
  if (clean === '' && closing === '' && dropsContent(name)) {
    const end = new RegExp(`^</${name}\\s*>$`, 'i');
    for (let j = index + 1; j < children.length; j += 1) {
      const next = children[j];
      if (next?.type === 'html_inline' && end.test(next.content)) {
        return { replacement: { ...replacement, until: next.content }, last: j };
      }
    }
  }
  return { replacement, last: index };
}

/**
 * The character references that stand for the openers of links to refused URLs: a reference is never
 * Markdown, in any reader, while a backslash escape can be taken into a bare URL before it by a reader
 * that links bare URLs (`https://x.test/\\[a](javascript:…)`).
 */
const AS_TEXT: Readonly<Record<string, string>> = { '[': '&#91;', '<': '&lt;', '(': '&#40;' };

/** `[`, `<` or `(` as text for every reader. */
export function asText(opener: string): string {
  return AS_TEXT[opener] ?? opener;
}

/** The edit that makes a link to a refused URL text for every reader: its opener as a reference. */
export function unsafeLinkEdit(token: Token): Replacement {
  const { raw, escapeAt } = token.meta as UnsafeLinkMeta;
  return { raw, text: asText(raw.charAt(escapeAt)), offset: escapeAt, length: 1, required: true };
}

export function isUnsafeLink(token: Token): boolean {
  return token.type === UNSAFE_LINK_TOKEN;
}

/** The source of the inline footnote (`^[…]`) a footnote_ref stands for, or null for a `[^label]`. */
export function inlineFootnoteSource(token: Token, env: Env): string | null {
  const id = (token.meta as { id?: unknown } | null)?.id;
  const list = (env.footnotes as { list?: Array<{ content?: string; tokens?: Token[] }> } | undefined)?.list;
  const footnote = typeof id === 'number' ? list?.[id] : undefined;
  return footnote?.tokens !== undefined && footnote.content !== undefined ? footnote.content : null;
}

/**
 * The cells of a table row past the header's count, as [start, end) in the row's line. markdown-it, like
 * GFM, ignores them; a reader without tables reads the row as a paragraph, cells and all. Split as
 * markdown-it splits (at each `|` not after a backslash); the line may start with quote markers.
 */
export function excessCells(line: string, columns: number): Array<[number, number]> {
  const cells: Array<[number, number]> = [];
  let start = 0;
  for (let i = 0; i < line.length; i += 1) {
    if (line.charCodeAt(i) !== 0x7c /* | */ || line.charCodeAt(i - 1) === 0x5c /* \ */) continue;
    cells.push([start, i]);
    start = i + 1;
  }
  cells.push([start, line.length]);
  const blank = ([from, to]: [number, number]): boolean => /^[ \t>]*$/.test(line.slice(from, to));
  if (cells.length > 1 && blank(cells[0] ?? [0, 0])) cells.shift();
  if (cells.length > 1 && blank(cells[cells.length - 1] ?? [0, 0])) cells.pop();
  return cells.slice(columns);
}

/** Stands in for inserted text when looking at what surrounds it. */
const INSERTED = '\uE000';
const MAY_COMBINE = /<|\]\(|\]:|\][\uE000$%[]/;

/**
 * Whether text inserted into an inline token's content (a variable's value, a badge's text) might join
 * the characters around it into HTML or a link a reader would read, though markdown-it did not. Inserted
 * text is escaped, so it can only complete what its surroundings start: a `<` not yet closed (a tag or
 * an autolink), a `](` not yet closed (a destination), a `]:` (a definition), or a `]` just before it.
 */
export function insertionMayCombine(
  content: string,
  all: readonly Replacement[],
  splice: (text: string, replacements: readonly Replacement[]) => string,
): boolean {
  if (!content.includes('<') && !content.includes(']')) return false;
  const inserted = all.filter((r) => r.escapes !== true);
  const around = splice(
    content,
    inserted.map((r) => ({ ...r, text: INSERTED })),
  );
  if (!MAY_COMBINE.test(around)) return false;
  if (around.includes(']:')) return true;
  // One pass, keeping where the last `<`, `>`, `](` and `)` were: at each insertion, whether a tag
  // or a destination is left open before it, or a `]` is just before it.
  let tagOpen = -1;
  let tagClose = -1;
  let destinationOpen = -1;
  let destinationClose = -1;
  for (let i = 0; i < around.length; i += 1) {
    const char = around.charAt(i);
    if (char === '<') tagOpen = i;
    else if (char === '>') tagClose = i;
    else if (char === ']' && around.charAt(i + 1) === '(') destinationOpen = i;
    else if (char === ')') destinationClose = i;
    else if (
      char === INSERTED &&
      (around.charAt(i - 1) === ']' || tagClose < tagOpen || destinationClose < destinationOpen)
    ) {
      return true;
    }
  }
  return false;
}

/**
 * The last resort when edits keep uncovering more to edit (links nested many levels deep, each becoming a
 * link once the one inside it is text): every `[` and `<` becomes a character reference, so nothing can
 * start HTML, an autolink or a link, and each still shows as itself outside code.
 */
export function inertMarkdown(markdown: string): string {
  return markdown.replace(/[[<]/g, asText);
}
