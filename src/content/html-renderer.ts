import MarkdownItConstructor, { type Env, type Renderer, type RendererRule, type Token } from 'markdown-it';
import { resolveAssetUrl, splitAssetMappings } from './assets.ts';
import { PLUGIN_TEXT_TOKEN, PLUGIN_TOKEN, pluginMeta } from './block-plugin-rule.ts';
import { escapeHtml } from './escape.ts';
import { pluginToHtml, type HtmlNesting } from './html-plugins.ts';
import { INLINE_TOKEN, VARIABLE_TOKEN, type InlineMeta } from './inline-rules.ts';
import { UNSAFE_LINK_TOKEN } from './link-safety.ts';
import { darkdownParser } from './parser.ts';
import { isInlineOnly, isPlainText } from './plain-text.ts';
import { childState, envOf, rootState, stateOf, type DarkdownState } from './render-state.ts';
import { sanitizeHtmlOutput } from './sanitiser.ts';
import { TASK_TOKEN } from './task-list-rule.ts';
import { darkdownToText } from './text-renderer.ts';
import type { RenderContext } from './types.ts';
import { resolveVariables } from './variables.ts';

function inlineItemHtml(meta: InlineMeta): string {
  const { item } = meta;
  switch (item.kind) {
    case 'badge':
      return `<span class="badge badge-${item.type}">${escapeHtml(item.text)}</span>`;
    case 'icon':
      return item.classes === '' ? '' : `<i class="${escapeHtml(item.classes)}"></i>`;
    case 'key':
      return `<kbd>${escapeHtml(item.key)}</kbd>`;
    case 'glossary':
      return `<abbr class="glossary">${escapeHtml(item.term)}</abbr>`;
  }
}

/** Renders the Darkdown a plugin holds, one level down; a class so no closures are made per plugin. */
class NestedHtml implements HtmlNesting {
  private readonly child: DarkdownState;

  constructor(private readonly state: DarkdownState) {
    this.child = childState(state);
  }

  block(source: string): string {
    if (isPlainText(source)) return source === '' ? '' : `<p>${escapeHtml(source)}</p>\n`;
    const env = envOf(this.child);
    return renderTokens(darkdownParser().parse(source, env), env);
  }

  compact(source: string): string {
    if (isPlainText(source)) return escapeHtml(source);
    const md = darkdownParser();
    const env = envOf(this.child);
    if (isInlineOnly(source)) {
      const [inline] = md.parseInline(source, env);
      return htmlRenderer().renderInline(inline?.children ?? [], md.options, env);
    }
    const tokens = md.parse(source, env);
    const [open, inline, close] = tokens;
    if (
      tokens.length === 3 &&
      open?.type === 'paragraph_open' &&
      close?.type === 'paragraph_close' &&
      inline
    ) {
      return htmlRenderer().renderInline(inline.children ?? [], md.options, env);
    }
    return htmlRenderer().render(tokens, md.options, env);
  }

  text(source: string): string {
    return darkdownToText(source, this.child);
  }

  plain(value: string): string {
    return escapeHtml(resolveVariables(value, this.state.ctx.variables));
  }

  asset(url: string): string {
    return resolveAssetUrl(url, this.state.assets);
  }
}

const pluginRule: RendererRule = (tokens, idx, _options, env) => {
  const token = tokens[idx];
  if (token === undefined) return '';
  const state = stateOf(env);
  return pluginToHtml(pluginMeta(token).plugin, new NestedHtml(state));
};

function createRenderer(): Renderer {
  const renderer = new MarkdownItConstructor.Renderer();
  // Start from the parser's rules so plugin renderers (footnotes) carry over.
  Object.assign(renderer.rules, darkdownParser().renderer.rules);
  renderer.rules[PLUGIN_TOKEN] = pluginRule;
  renderer.rules[PLUGIN_TEXT_TOKEN] = (tokens, idx) => `<p>${escapeHtml(tokens[idx]?.content ?? '')}</p>\n`;
  renderer.rules[INLINE_TOKEN] = (tokens, idx) => {
    const token = tokens[idx];
    return token ? inlineItemHtml(token.meta as InlineMeta) : '';
  };
  renderer.rules[VARIABLE_TOKEN] = (tokens, idx) => escapeHtml(tokens[idx]?.content ?? '');
  renderer.rules[UNSAFE_LINK_TOKEN] = (tokens, idx) => escapeHtml(tokens[idx]?.content ?? '');
  renderer.rules[TASK_TOKEN] = (tokens, idx) =>
    `<input class="task-list-item-checkbox" type="checkbox" disabled${tokens[idx]?.meta?.checked === true ? ' checked' : ''}> `;
  return renderer;
}

let renderer: Renderer | undefined;

/** Separate from markdown-it's own renderer so the parser stays the same for every output format. */
function htmlRenderer(): Renderer {
  renderer ??= createRenderer();
  return renderer;
}

function renderTokens(tokens: Token[], env: Env): string {
  return htmlRenderer().render(tokens, darkdownParser().options, env);
}

/** Darkdown to HTML before sanitising; nested content is sanitised once, with the page. */
export function darkdownToHtml(source: string, ctx?: RenderContext): string {
  const { body, assets } = splitAssetMappings(source);
  const env = envOf(rootState(ctx, assets));
  return renderTokens(darkdownParser().parse(body, env), env);
}

export function renderHtml(source: string, ctx?: RenderContext): string {
  return sanitizeHtmlOutput(darkdownToHtml(source, ctx));
}
