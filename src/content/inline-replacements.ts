import type { Env, MarkdownIt, Token } from 'markdown-it';
import { assetMeta } from './core-rules.ts';
import { escapeHtml, escapeMarkdownText, markdownDestination } from './escape.ts';
import { InlineSearch } from './inline-search.ts';
import { inlineItemText } from './inline-text.ts';
import {
  INLINE_TOKEN,
  VARIABLE_TOKEN,
  isAutoLinkOpen,
  type AutoLinkMeta,
  type InlineMeta,
  type VariableMeta,
} from './inline-rules.ts';
import { insertionEscapes } from './insertion-escapes.ts';
import { inlineFootnoteSource, inlineHtmlEdit, isUnsafeLink, unsafeLinkEdit } from './markdown-safety.ts';
import type { Plugin } from './plugin-data.ts';
import type { Replacement } from './source-lines.ts';

// What Markdown output replaces in one inline token's source (src/content/markdown-splice.ts makes
// the replacements): Darkdown's inline constructs, images' asset URLs, and the safety edits.

/** What splicing needs from a Darkdown render (plain Markdown has neither). */
export interface DarkdownHooks {
  /** a block plugin as Markdown */
  plugin(plugin: Plugin): string;
  /** the env to read a piece of the same source again with */
  env(): Env;
}

function inlineItemMarkdown({ item }: InlineMeta): string {
  switch (item.kind) {
    case 'badge':
      return escapeMarkdownText(item.text);
    case 'icon':
      return '';
    case 'key':
      return `<kbd>${escapeHtml(item.key)}</kbd>`;
    case 'glossary':
      return escapeMarkdownText(item.term);
  }
}

/** How the tokens were read, and what collecting replacements found besides the replacements. */
export interface Collected {
  readonly md: MarkdownIt;
  readonly darkdown: DarkdownHooks | undefined;
  /** insertions next to a character that may read otherwise next to them (see readsAsBefore) */
  readonly delimited: Replacement[];
  /** the inline token's content, where the places of what is replaced are */
  readonly text: string;
  /** the same, searched (made when first needed) */
  search?: InlineSearch;
  /** where the next image's description is looked for: past the images found so far, or inside one */
  imagesFrom: number;
  /** text inserted in place of Darkdown (badges, variables…), which its surroundings might turn into markup */
  inserted: boolean;
  /**
   * the output here must be read again as a reader reads it: an edit was made for safety (HTML the
   * allowlist changes, a link to a refused URL), or a construct may read otherwise without GFM
   */
  recheck: boolean;
}

export function collecting(md: MarkdownIt, darkdown: DarkdownHooks | undefined, content: string): Collected {
  return { md, darkdown, delimited: [], text: content, imagesFrom: 0, inserted: false, recheck: false };
}

/**
 * Where an image's `![description]` is, from `from` on: the first copy that an address or a
 * reference follows, among the next few (an earlier one may sit in a link's address); else the first.
 */
function imageAt(
  search: InlineSearch,
  text: string,
  description: string,
  from: number,
): [number, number] | null {
  let first: [number, number] | null = null;
  let found = search.find(`![${description}]`, from, false);
  for (let tries = 0; found !== null && tries < 8; tries += 1) {
    first ??= found;
    if (text.charAt(found[1]) === '(' || text.charAt(found[1]) === '[') return found;
    found = search.find(`![${description}]`, found[0] + 1, false);
  }
  return first;
}

/** Where the last replacement placed in the content ends (`from` if none is). */
function placedUpTo(out: readonly Replacement[], from: number): number {
  for (let i = out.length - 1; i >= 0; i -= 1) {
    const r = out[i];
    if (r?.at !== undefined) return Math.max(from, r.at + r.raw.length);
  }
  return from;
}

/** The constructs of one inline token that markdown output replaces, in source order. */
export function collectReplacements(
  children: readonly Token[],
  out: Replacement[],
  env: Env,
  found: Collected,
  offset: number | null = 0,
  inAlt = false,
): void {
  // Where a construct was read, in the content: its place in what the rule read (the content, or an
  // image's description), past where that starts; unknown in an inline footnote, read on its own.
  const at = (meta: { at: number }) => (offset === null ? {} : { at: offset + meta.at });
  for (let i = 0; i < children.length; i += 1) {
    const token = children[i];
    if (token === undefined) continue;
    if (token.type === INLINE_TOKEN || token.type === VARIABLE_TOKEN) {
      const meta = token.meta as InlineMeta | VariableMeta;
      // In an image's description, markup would be read as text of the alt: an item is its text there.
      const item = (m: InlineMeta) => (inAlt ? escapeMarkdownText(inlineItemText(m)) : inlineItemMarkdown(m));
      const text = 'item' in meta ? item(meta) : escapeMarkdownText(meta.value);
      if (offset === null) out.push({ raw: meta.raw, text });
      else {
        const place = offset + meta.at;
        const { before, after, delimited } = insertionEscapes(children, i, found.text, place, meta.raw, text);
        const replacement = { raw: meta.raw, text, at: place };
        // (Not in an image's description, whose alt text would show the tags.)
        if (delimited && offset === 0) found.delimited.push(replacement);
        out.push(...before, replacement, ...after);
      }
      found.inserted = true;
    } else if (token.markup === 'linkify' && token.type === 'link_open') {
      // linkify-it takes quoted parts into a URL (`https://x.test/"[a](…)"`); without GFM they are Markdown.
      if (/[<[\]]/.test(children[i + 1]?.content ?? '')) found.recheck = true;
    } else if (isAutoLinkOpen(token)) {
      const meta = token.meta as AutoLinkMeta;
      const { title, href } = meta.autoLink;
      out.push({ raw: meta.raw, text: `[${escapeMarkdownText(title)}](${href})`, ...at(meta) });
    } else if (token.type === 'image') {
      // The alt text comes before the URL in the source; both are found after the description's start.
      const search = offset === null ? null : (found.search ??= new InlineSearch(found.text));
      const from = Math.max(placedUpTo(out, offset ?? 0), found.imagesFrom);
      const opened = search === null ? null : imageAt(search, found.text, token.content, from);
      if (opened !== null) found.imagesFrom = opened[0] + 2;
      if (token.children !== null) {
        collectReplacements(token.children, out, env, found, opened === null ? null : opened[0] + 2, true);
      }
      const asset = assetMeta(token);
      const url =
        asset === null || opened === null ? null : (search?.find(asset.raw, opened[1], true) ?? null);
      if (opened !== null) found.imagesFrom = Math.max(found.imagesFrom, url?.[1] ?? opened[1]);
      if (asset !== null) {
        const place = url === null ? {} : { at: url[0] };
        out.push({ raw: asset.raw, text: markdownDestination(asset.asset), asUrl: true, ...place });
      }
    } else if (token.type === 'html_inline') {
      const edit = inlineHtmlEdit(children, i);
      if (edit !== null) {
        out.push(edit.replacement);
        found.recheck = true;
        i = edit.last;
      }
    } else if (isUnsafeLink(token)) {
      out.push(unsafeLinkEdit(token));
      found.recheck = true;
    } else if (token.type === 'footnote_ref') {
      // An inline footnote is read again from its source: markdown-it-footnote keeps the tokens of only
      // the outermost of nested ones (the inner gets the same id, and its entry is overwritten).
      const source = inlineFootnoteSource(token, env);
      if (source !== null) {
        const footnoteEnv = found.darkdown?.env() ?? {};
        const [inline] = found.md.parseInline(source, footnoteEnv);
        collectReplacements(inline?.children ?? [], out, footnoteEnv, found, null, inAlt);
      }
    }
  }
}
