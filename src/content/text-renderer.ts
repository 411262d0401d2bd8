import type { Token } from 'markdown-it';
import { splitAssetMappings } from './assets.ts';
import { PLUGIN_TEXT_TOKEN, PLUGIN_TOKEN, pluginMeta } from './block-plugin-rule.ts';
import { htmlToText, inlineToText, trimTrailingNewlines } from './inline-text.ts';
import { darkdownParser } from './parser.ts';
import { isInlineOnly, isPlainText } from './plain-text.ts';
import type { Plugin } from './plugin-data.ts';
import { childState, envOf, rootState, type DarkdownState } from './render-state.ts';
import type { RenderContext } from './types.ts';
import { resolveVariables } from './variables.ts';

function joinParts(parts: readonly string[]): string {
  return parts.filter((p) => p !== '').join('\n\n');
}

/** A table cell on one line: its lines trimmed and joined by spaces. */
function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}

function titled(title: string, body: string): string {
  return title === '' ? body : body === '' ? title : `${title}\n${body}`;
}

/** Plain text of one block plugin (darkdown.md §4, `text` column). */
export function pluginToText(plugin: Plugin, state: DarkdownState): string {
  const child = childState(state);
  const vars = state.ctx.variables;
  switch (plugin.kind) {
    case 'callout':
      return titled(resolveVariables(plugin.title, vars).trim(), darkdownToText(plugin.text, child));
    case 'code-block':
      return joinParts(plugin.entries.map((e) => trimTrailingNewlines(e.code)));
    case 'image':
      return plugin.caption === null ? '' : darkdownToText(plugin.caption, child);
    case 'custom-html':
      return htmlToText(plugin.contents);
    case 'video':
    case 'synced-block':
    case 'unknown':
      return '';
    case 'table':
      return plugin.rows
        .map((row) => row.map((cell) => oneLine(darkdownToText(cell, child))).join('\t'))
        .join('\n');
    case 'tabs':
      return joinParts(
        plugin.tabs.map((t) =>
          titled(resolveVariables(t.title, vars).trim(), darkdownToText(t.content, child)),
        ),
      );
    case 'cards':
      return joinParts(
        plugin.cards.map((c) =>
          titled(resolveVariables(c.title, vars).trim(), resolveVariables(c.text, vars).trim()),
        ),
      );
    case 'accordion':
      return titled(resolveVariables(plugin.title, vars).trim(), darkdownToText(plugin.content, child));
  }
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * Text output built from parts. Reading the end of a string grown with `+=` makes V8 flatten it, a
 * copy of everything so far; closing every block that way made a page of many blocks quadratic (a
 * 300,000-character page took seconds). Parts are joined once, at the end.
 */
class TextOut {
  private readonly parts: string[] = [];

  add(text: string): void {
    if (text !== '') this.parts.push(text);
  }

  /** Closes a block: trailing spaces dropped, then one or two line breaks. */
  endBlock(breaks: string): void {
    const { parts } = this;
    for (;;) {
      const last = parts[parts.length - 1];
      if (last === undefined) return;
      let end = last.length;
      while (end > 0 && isBlank(last[end - 1])) end -= 1;
      if (end === last.length) break;
      if (end > 0) {
        parts[parts.length - 1] = last.slice(0, end);
        break;
      }
      parts.pop();
    }
    const last = parts[parts.length - 1] ?? '';
    const tail = last.length >= 2 ? last.slice(-2) : (parts[parts.length - 2] ?? '').slice(-1) + last;
    if (tail.endsWith('\n\n')) return;
    this.add(tail.endsWith('\n') ? breaks.slice(1) : breaks);
  }

  toString(): string {
    return this.parts.join('');
  }
}

/**
 * Plain text of a token range: one line per paragraph, heading, list item and table row (cells separated
 * by tabs), blank lines between blocks. Markup, images' URLs and HTML tags are dropped.
 */
export function tokensToText(
  tokens: readonly Token[],
  from: number,
  to: number,
  state: DarkdownState,
): string {
  const out = new TextOut();
  for (let i = from; i < to; i += 1) {
    const token = tokens[i];
    if (token === undefined) continue;
    switch (token.type) {
      case 'inline':
        out.add(inlineToText(token.children));
        break;
      case 'paragraph_close':
        out.endBlock(token.hidden ? '\n' : '\n\n');
        break;
      case 'heading_close':
      case 'bullet_list_close':
      case 'ordered_list_close':
      case 'blockquote_close':
      case 'table_close':
        out.endBlock('\n\n');
        break;
      case 'list_item_close':
      case 'tr_close':
        out.endBlock('\n');
        break;
      case 'th_close':
      case 'td_close':
        out.add('\t');
        break;
      case 'fence':
      case 'code_block':
        out.add(trimTrailingNewlines(token.content));
        out.endBlock('\n\n');
        break;
      case 'html_block':
        out.add(htmlToText(token.content));
        out.endBlock('\n\n');
        break;
      case PLUGIN_TOKEN:
        out.add(pluginToText(pluginMeta(token).plugin, state));
        out.endBlock('\n\n');
        break;
      case PLUGIN_TEXT_TOKEN:
        out.add(token.content);
        out.endBlock('\n\n');
        break;
      default:
        break;
    }
  }
  return out.toString().trim();
}

export function darkdownToText(source: string, state: DarkdownState): string {
  if (isPlainText(source)) return source;
  if (isInlineOnly(source)) {
    const [inline] = darkdownParser().parseInline(source, envOf(state));
    return inlineToText(inline?.children ?? null).trim();
  }
  const tokens = darkdownParser().parse(source, envOf(state));
  return tokensToText(tokens, 0, tokens.length, state);
}

export function renderText(source: string, ctx?: RenderContext): string {
  const { body, assets } = splitAssetMappings(source);
  return darkdownToText(body, rootState(ctx, assets));
}
