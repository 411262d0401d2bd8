import type { MarkdownIt, Token } from 'markdown-it';
import { splitAssetMappings } from './assets.ts';
import { PLUGIN_TOKEN, pluginMeta } from './block-plugin-rule.ts';
import { safeLinkTarget } from './escape.ts';
import { inlineToText } from './inline-text.ts';
import { isAutoLinkOpen, type AutoLinkMeta } from './inline-rules.ts';
import { darkdownParser } from './parser.ts';
import { isInlineOnly, isPlainText } from './plain-text.ts';
import type { Plugin } from './plugin-data.ts';
import { tableColumns } from './plugin-data.ts';
import { childState, envOf, rootState, type DarkdownState } from './render-state.ts';
import { darkdownToText } from './text-renderer.ts';
import { resolveVariables } from './variables.ts';

/** A link as a reader of the rendered page meets it. */
export interface ScannedLink {
  /** `markdown`: any link Markdown makes (inline, reference, autolink, bare URL); `auto`: `[auto$]`; `card`: a cards plugin's link */
  kind: 'markdown' | 'auto' | 'card';
  /**
   * As the author wrote it: an `[auto$]` or card link as in the source; a Markdown link's destination
   * as markdown-it reads it (entities and backslash escapes undone), without the encoding it adds
   */
  href: string;
  /** the link's text as plain text; for `[auto$]` the page slug, which the report replaces by the title */
  text: string;
}

/** What one content gives the report: its links in reading order and the ids of its headings. */
export interface ContentScan {
  links: ScannedLink[];
  anchors: string[];
}

type Variables = Readonly<Record<string, unknown>>;

/**
 * Part of every scan's key (links.scanner.ts scanKeys). Scans are stored, and read again by later
 * versions of Quire: raise it whenever scanContent reads a content differently (the engine or this
 * file changes what a scan holds), so that no report uses a scan made the old way.
 */
export const SCAN_VERSION = 1;

/**
 * Reads a Darkdown content with the engine's own parser, as the HTML output reads it: the same rules,
 * the same state, and nested Darkdown (callouts, tabs, table cells, captions) parsed in the order the
 * HTML renderer parses it. That order matters: every parse claims its headings' anchors from one
 * registry per page, so `setup-2` is the anchor of whichever "Setup" heading the HTML renderer met
 * second. Links and ids written as HTML (inline HTML, a custom-html plugin) are not read: the engine
 * passes HTML on to the sanitiser unread, and reading it here would take an HTML parser of our own.
 */
export function scanContent(source: string, variables: Variables | undefined): ContentScan {
  const { body, assets } = splitAssetMappings(source);
  const state = rootState(variables === undefined ? {} : { variables }, assets);
  const scan: ContentScan = { links: [], anchors: [] };
  walkBlocks(darkdownParser().parse(body, envOf(state)), state, scan);
  return scan;
}

function walkBlocks(tokens: readonly Token[], state: DarkdownState, scan: ContentScan): void {
  for (const token of tokens) {
    if (token.type === 'heading_open') {
      const id = token.attrGet('id');
      if (typeof id === 'string' && id !== '') scan.anchors.push(id);
    } else if (token.type === 'inline') {
      walkInline(token.children ?? [], scan);
    } else if (token.type === PLUGIN_TOKEN) {
      walkPlugin(pluginMeta(token).plugin, childState(state), state, scan);
    }
  }
}

/** What mdurl makes of a `%` that starts no escape; shown as the `%` it was. */
const LONE_PERCENT = /%25(?![0-9a-f]{2})/gi;

/**
 * A destination as its author wrote it: markdown-it percent-encodes destinations (a lone `%` too) and
 * punycodes hosts, and its own reading for display undoes all but the `%`. Most destinations have
 * neither, and are left alone: a URL parse per link saved.
 */
function asWritten(md: MarkdownIt, href: string): string {
  if (!href.includes('%') && !href.includes('xn--')) return href;
  return md.normalizeLinkText(href).replace(LONE_PERCENT, '%');
}

function walkInline(children: readonly Token[], scan: ContentScan): void {
  const md = darkdownParser();
  for (let i = 0; i < children.length; i += 1) {
    const open = children[i];
    if (open?.type !== 'link_open') continue;
    let close = i + 1;
    while (close < children.length && children[close]?.type !== 'link_close') close += 1;
    if (isAutoLinkOpen(open)) {
      const meta = open.meta as AutoLinkMeta;
      scan.links.push({ kind: 'auto', href: meta.autoLink.href, text: '' });
    } else {
      scan.links.push({
        kind: 'markdown',
        href: asWritten(md, String(open.attrGet('href') ?? '')),
        text: inlineToText(children.slice(i + 1, close)).trim(),
      });
    }
    i = close;
  }
}

/** Nested Darkdown rendered as blocks (HtmlNesting.block); plain text holds neither links nor headings. */
function nestedBlock(source: string, child: DarkdownState, scan: ContentScan): void {
  if (isPlainText(source)) return;
  walkBlocks(darkdownParser().parse(source, envOf(child)), child, scan);
}

/** Nested Darkdown rendered without its paragraph (HtmlNesting.compact): a line alone is read inline. */
function nestedCompact(source: string, child: DarkdownState, scan: ContentScan): void {
  if (isPlainText(source)) return;
  const md = darkdownParser();
  if (isInlineOnly(source)) {
    const [inline] = md.parseInline(source, envOf(child));
    walkInline(inline?.children ?? [], scan);
    return;
  }
  walkBlocks(md.parse(source, envOf(child)), child, scan);
}

/** The Darkdown and links a plugin holds, in the order pluginToHtml renders them. */
function walkPlugin(plugin: Plugin, child: DarkdownState, state: DarkdownState, scan: ContentScan): void {
  switch (plugin.kind) {
    case 'callout':
      nestedBlock(plugin.text, child, scan);
      return;
    case 'image': {
      // The figcaption is rendered first, then the image's alt text is read, and that reading claims
      // anchors too (html-plugins.ts).
      const caption = plugin.caption?.trim() ?? '';
      if (caption !== '') nestedCompact(caption, child, scan);
      darkdownToText(caption, child);
      return;
    }
    case 'table': {
      const columns = tableColumns(plugin.rows);
      for (const row of plugin.rows) {
        for (let c = 0; c < columns; c += 1) nestedCompact(row[c] ?? '', child, scan);
      }
      return;
    }
    case 'tabs':
      for (const tab of plugin.tabs) nestedBlock(tab.content, child, scan);
      return;
    case 'accordion':
      nestedBlock(plugin.content, child, scan);
      return;
    case 'cards':
      for (const card of plugin.cards) {
        const link = safeLinkTarget(card.link);
        if (link === '') continue;
        const text = resolveVariables(card.title, state.ctx.variables).trim();
        scan.links.push({ kind: 'card', href: link, text });
      }
      return;
    case 'code-block':
    case 'custom-html':
    case 'video':
    case 'synced-block':
    case 'unknown':
      return;
  }
}
