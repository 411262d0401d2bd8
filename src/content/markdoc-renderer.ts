import { isDeepStrictEqual } from 'node:util';
import type { Token } from 'markdown-it';
import { PLUGIN_TOKEN } from './block-plugin-rule.ts';
import { INLINE_TOKEN, isAutoLinkOpen, type AutoLinkMeta, type InlineMeta } from './inline-rules.ts';
import { markdocToDarkdown } from './markdoc-to-darkdown.ts';
import { inlineTag, pluginTag, type TagContext } from './markdoc-tags.ts';
import { darkdownParser, tokensInSourceOrder } from './parser.ts';
import { isPlainText } from './plain-text.ts';
import { childState, envOf, rootState, type DarkdownState } from './render-state.ts';
import { SourceLines, type Replacement } from './source-lines.ts';
import type { MarkdocLinks } from './types.ts';

/*
 * Darkdown to the platform's Markdoc (docs/decisions/0032-markdoc-output.md), by splicing as the
 * Markdown renderer does: the source stays byte for byte but where a plugin, an inline token or a
 * link to a page stood. Each plugin's tag is read back through the importer's own conversion before
 * it is written; one that would not come back as the same plugin keeps its Darkdown text, which the
 * importer passes through as it is.
 */

export type { MarkdocLinks };

const PLUGIN_OPENER = '$plugin[';
const INLINE_OPENER = '$inline[';

export function renderMarkdoc(source: string, links?: MarkdocLinks): string {
  return new MarkdocWriter(links).render(source, rootState(undefined, new Map()));
}

class MarkdocWriter {
  /** the relative links written so far, and the addresses they stand for: how the importer reads them */
  private readonly written = new Map<string, string>();

  constructor(private readonly links: MarkdocLinks | undefined) {}

  render(source: string, state: DarkdownState): string {
    if (isPlainText(source) && !source.includes('{%')) return source;
    const md = darkdownParser();
    const env = envOf(state);
    const tokens = tokensInSourceOrder(md.parse(source, env), env);
    const lines = new SourceLines(source);
    const maps: Array<[number, number] | null> = [];
    let inCell = false;
    for (const token of tokens) {
      const map = token.map ?? maps[maps.length - 1] ?? null;
      if (token.type === 'td_open' || token.type === 'th_open') inCell = true;
      else if (token.type === 'td_close' || token.type === 'th_close') inCell = false;
      if (token.type === PLUGIN_TOKEN && token.map !== null && token.level === 0) {
        const tag = this.plugin(token.content, state);
        if (tag !== null) lines.replaceBlock(token.map, tag, PLUGIN_OPENER, false);
      } else if (token.type === 'inline' && token.children !== null && map !== null) {
        const found = this.inline(token.children);
        if (found.length > 0 || inCell) {
          const anchor = lines.locate(map, token.content, inCell);
          if (found.length > 0) lines.replaceInline(map, found, anchor);
        }
      }
      if (token.nesting === 1) maps.push(map);
      else if (token.nesting === -1) maps.pop();
    }
    return lines.apply();
  }

  /**
   * A plugin's tag, when the importer reads it back as the same plugin; null to keep its text. A plugin inside a list or a quote keeps its text: Markdoc's tags
   * stand on lines of their own.
   */
  private plugin(text: string, state: DarkdownState): string | null {
    const value = parseJson(pluginJson(text));
    if (typeof value !== 'object' || value === null) return null;
    const { type, data } = value as { type?: unknown; data?: unknown };
    if (typeof type !== 'string' || typeof data !== 'object' || data === null || Array.isArray(data))
      return null;
    const child = childState(state);
    const ctx: TagContext = {
      body: (darkdown) => this.render(darkdown, child),
      link: (href) => this.link(href),
    };
    const tag = pluginTag(type, data as Record<string, unknown>, ctx);
    if (tag === null) return null;
    const back = markdocToDarkdown(tag, { resolveLink: (href) => this.written.get(href) }).body;
    if (!back.startsWith(PLUGIN_OPENER) || !back.endsWith(']$')) return null;
    const again = parseJson(back.slice(PLUGIN_OPENER.length, -2));
    return samePlugin(value, again) ? tag : null;
  }

  /** Inline tokens as tags, page links as relative file links, and `{%` in text escaped. */
  private inline(children: readonly Token[]): Replacement[] {
    const found: Replacement[] = [];
    for (const token of children) {
      if (token.type === INLINE_TOKEN) {
        const meta = token.meta as InlineMeta;
        found.push({ raw: meta.raw, text: tokenTag(meta), at: meta.at });
      } else if (isAutoLinkOpen(token)) {
        const meta = token.meta as AutoLinkMeta;
        const target = this.link(meta.autoLink.href);
        if (target !== meta.autoLink.href)
          found.push({ raw: meta.raw, text: `[auto$](${target})`, at: meta.at });
      } else if (token.type === 'link_open' && token.markup !== 'linkify' && token.markup !== 'autolink') {
        const href = String(token.attrGet('href') ?? '');
        const target = this.link(href);
        if (target !== href) found.push({ raw: `](${href}`, text: `](${target}` });
      } else if (token.type === 'text' && token.content.includes('{%')) {
        // Markdoc would read a tag there; escaped, it reads `{%` (and the importer keeps the backslash).
        for (let at = token.content.indexOf('{%'); at >= 0; at = token.content.indexOf('{%', at + 2))
          found.push({ raw: '{%', text: '\\{%' });
      }
    }
    return found;
  }

  /** A page's address (`/guide/setup#a`) as its file relative to this page's (`setup.md#a`). */
  private link(href: string): string {
    if (this.links === undefined || !href.startsWith('/')) return href;
    const hash = href.indexOf('#');
    const path = hash < 0 ? href.slice(1) : href.slice(1, hash);
    const file = this.links.pages.get(path);
    if (file === undefined) return href;
    const target = `${relativePath(this.links.file, file)}${hash < 0 ? '' : href.slice(hash)}`;
    this.written.set(target, href);
    return target;
  }
}

/**
 * An inline token's tag, with its text as written (`$inline[badge,New ,success]` keeps its space), so
 * that the importer writes the same token; a token in another form (`$inline[badge,New]`, a name in
 * capitals) gets the tag of what it means, and comes back in the importer's form.
 */
function tokenTag({ raw, item }: InlineMeta): string {
  const body = raw.slice(INLINE_OPENER.length, -1);
  const comma = body.indexOf(',');
  const args = body.slice(comma + 1);
  if (comma < 0 || body.slice(0, comma) !== item.kind) return inlineTag(item);
  switch (item.kind) {
    case 'badge': {
      const last = args.lastIndexOf(',');
      return last >= 0 && args.slice(last + 1) === item.type
        ? inlineTag({ ...item, text: args.slice(0, last) })
        : inlineTag(item);
    }
    case 'icon':
      return inlineTag({ ...item, classes: args });
    case 'key':
      return inlineTag({ ...item, key: args });
    case 'glossary':
      return inlineTag({ ...item, term: args });
  }
}

/** `to` as a link from the file `from`, both relative to the same folder. */
export function relativePath(from: string, to: string): string {
  const base = from.split('/').slice(0, -1);
  const parts = to.split('/');
  let shared = 0;
  while (shared < base.length && shared < parts.length - 1 && base[shared] === parts[shared]) shared++;
  return [...base.slice(shared).map(() => '..'), ...parts.slice(shared)].join('/');
}

/** The JSON of a plugin's text: between `$plugin[` and the `]$` that ends its last line. */
function pluginJson(text: string): string {
  const trimmed = text.trimEnd();
  return trimmed.endsWith(']$') ? trimmed.slice(PLUGIN_OPENER.length, -2) : '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Whether the importer's plugin is this one: the same type and data, whatever the JSON's layout, key
 * order or escapes. A default the tag would fill in (an image without a mode) is a different plugin.
 */
function samePlugin(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}
