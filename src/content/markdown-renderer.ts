import type { Token } from 'markdown-it';
import { resolveAssetUrl, splitAssetMappings } from './assets.ts';
import { PLUGIN_TOKEN, pluginMeta } from './block-plugin-rule.ts';
import { assetMeta } from './core-rules.ts';
import { escapeHtml, escapeMarkdownText, markdownDestination } from './escape.ts';
import {
  INLINE_TOKEN,
  VARIABLE_TOKEN,
  isAutoLinkOpen,
  type AutoLinkMeta,
  type InlineMeta,
  type VariableMeta,
} from './inline-rules.ts';
import { pluginToMarkdown, type MarkdownNesting } from './markdown-plugins.ts';
import { darkdownParser } from './parser.ts';
import { isPlainText } from './plain-text.ts';
import { childState, envOf, rootState, type DarkdownState } from './render-state.ts';
import { SourceLines, type Replacement } from './source-lines.ts';
import { darkdownToText } from './text-renderer.ts';
import type { RenderContext } from './types.ts';
import { resolveVariables } from './variables.ts';

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

/** The constructs of one inline token that markdown output replaces, in source order. */
function collectReplacements(children: readonly Token[], out: Replacement[]): void {
  for (const token of children) {
    if (token.type === INLINE_TOKEN) {
      const meta = token.meta as InlineMeta;
      out.push({ raw: meta.raw, text: inlineItemMarkdown(meta) });
    } else if (token.type === VARIABLE_TOKEN) {
      const meta = token.meta as VariableMeta;
      out.push({ raw: meta.raw, text: escapeMarkdownText(meta.value) });
    } else if (isAutoLinkOpen(token)) {
      const meta = token.meta as AutoLinkMeta;
      const { title, href } = meta.autoLink;
      out.push({ raw: meta.raw, text: `[${escapeMarkdownText(title)}](${href})` });
    } else if (token.type === 'image') {
      // The alt text comes before the URL in the source.
      if (token.children !== null) collectReplacements(token.children, out);
      const asset = assetMeta(token);
      if (asset !== null) out.push({ raw: asset.raw, text: markdownDestination(asset.asset), asUrl: true });
    }
  }
}

/** Converts the Darkdown a plugin holds, one level down. */
class NestedMarkdown implements MarkdownNesting {
  private readonly child: DarkdownState;

  constructor(private readonly state: DarkdownState) {
    this.child = childState(state);
  }

  block(source: string): string {
    return darkdownToMarkdown(source, this.child);
  }

  text(source: string): string {
    return darkdownToText(source, this.child);
  }

  plain(value: string): string {
    return escapeMarkdownText(resolveVariables(value, this.state.ctx.variables));
  }

  asset(url: string): string {
    return resolveAssetUrl(url, this.state.assets);
  }
}

/**
 * Darkdown to portable Markdown by splicing, not re-printing: the source stays byte for byte except where
 * a plugin block, an inline token, an auto link, a variable or an asset URL stood. Token line maps locate
 * blocks; inline constructs are found again within their block's lines, in order, outside code spans.
 */
export function darkdownToMarkdown(source: string, state: DarkdownState): string {
  if (isPlainText(source)) return source;
  const tokens = darkdownParser().parse(source, envOf(state));
  const lines = new SourceLines(source);
  const maps: Array<[number, number] | null> = [];
  for (const token of tokens) {
    const map = token.map ?? maps[maps.length - 1] ?? null;
    if (token.type === PLUGIN_TOKEN && token.map !== null) {
      lines.replaceBlock(token.map, pluginToMarkdown(pluginMeta(token).plugin, new NestedMarkdown(state)));
    } else if (token.type === 'inline' && token.children !== null && map !== null) {
      const found: Replacement[] = [];
      collectReplacements(token.children, found);
      if (found.length > 0) lines.replaceInline(map, found);
    }
    if (token.nesting === 1) maps.push(map);
    else if (token.nesting === -1) maps.pop();
  }
  return lines.apply();
}

export function renderMarkdown(source: string, ctx?: RenderContext): string {
  const { body, assets } = splitAssetMappings(source);
  const markdown = darkdownToMarkdown(body, rootState(ctx, assets));
  // The mapping comments are dropped (their URLs are now inline); keep the page's final line break.
  return body.length < source.length ? `${markdown.trimEnd()}\n` : markdown;
}
