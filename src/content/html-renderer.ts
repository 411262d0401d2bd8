import { highlightCode } from './highlight.ts';
import MarkdownItConstructor, { type Env, type Renderer, type RendererRule, type Token } from 'markdown-it';
import { splitAssetMappings } from './assets.ts';
import { PLUGIN_TEXT_TOKEN, PLUGIN_TOKEN, pluginMeta } from './block-plugin-rule.ts';
import { escapeHtml } from './escape.ts';
import { attributeHtml, escapeText, selfClosing } from './html-allowlist.ts';
import {
  holdsRawHtml,
  NestedHtml,
  renderList,
  scopeOf,
  type HtmlOutput,
  type Options,
} from './html-nesting.ts';
import { pluginToHtml } from './html-plugins.ts';
import { INLINE_TOKEN, VARIABLE_TOKEN, type InlineMeta } from './inline-rules.ts';
import { inlineItemText } from './inline-text.ts';
import { UNSAFE_LINK_TOKEN } from './link-safety.ts';
import { darkdownParser } from './parser.ts';
import { RawHtmlScope } from './raw-html-scope.ts';
import { envOf, rootState, stateOf, type DarkdownState } from './render-state.ts';
import { sanitizeHtmlOutput } from './sanitiser.ts';
import { TASK_TOKEN } from './task-list-rule.ts';
import type { RenderContext } from './types.ts';

function inlineItemHtml(meta: InlineMeta, out: HtmlOutput): string {
  const { item } = meta;
  switch (item.kind) {
    case 'badge':
      return `<span class="badge badge-${item.type}">${out.escape(item.text)}</span>`;
    case 'icon':
      return item.classes === '' ? '' : `<i${out.attr('i', 'class', item.classes)}></i>`;
    case 'key':
      return `<kbd>${out.escape(item.key)}</kbd>`;
    case 'glossary':
      return `<abbr class="glossary">${out.escape(item.term)}</abbr>`;
  }
}

function createRenderer(out: HtmlOutput): Renderer {
  const renderer = new MarkdownItConstructor.Renderer();
  // Start from the parser's rules so plugin renderers (footnotes) carry over.
  Object.assign(renderer.rules, darkdownParser().renderer.rules);
  renderer.rules[PLUGIN_TOKEN] = (tokens, idx, _options, env) => {
    const token = tokens[idx];
    if (token === undefined) return '';
    return pluginToHtml(pluginMeta(token).plugin, new NestedHtml(stateOf(env), out, env ?? {}));
  };
  renderer.rules[PLUGIN_TEXT_TOKEN] = (tokens, idx) => `<p>${out.escape(tokens[idx]?.content ?? '')}</p>\n`;
  renderer.rules[INLINE_TOKEN] = (tokens, idx) => {
    const token = tokens[idx];
    return token ? inlineItemHtml(token.meta as InlineMeta, out) : '';
  };
  renderer.rules[VARIABLE_TOKEN] = (tokens, idx) => out.escape(tokens[idx]?.content ?? '');
  // An image's alt text: markdown-it's own reading of its description, which knows no Darkdown tokens.
  const asText = renderer.renderInlineAsText.bind(renderer);
  renderer.renderInlineAsText = (tokens, options, env) =>
    tokens
      .map((token) => {
        if (token.type === VARIABLE_TOKEN) return token.content;
        if (token.type === INLINE_TOKEN) return inlineItemText(token.meta as InlineMeta);
        if (token.type === 'image') return renderer.renderInlineAsText(token.children ?? [], options, env);
        return asText([token], options, env);
      })
      .join('');
  renderer.rules[UNSAFE_LINK_TOKEN] = (tokens, idx) => out.escape(tokens[idx]?.content ?? '');
  renderer.rules[TASK_TOKEN] = (tokens, idx) =>
    `<input${out.attr('input', 'class', 'task-list-item-checkbox')}${out.attr('input', 'type', 'checkbox')}` +
    `${out.flag('input', 'disabled')}${tokens[idx]?.meta?.checked === true ? out.flag('input', 'checked') : ''}` +
    `${out.end('input')} `;
  if (out.sanitised) writeAsSanitised(renderer);
  return renderer;
}

const UNSANITISED: HtmlOutput = {
  sanitised: false,
  renderer: () => (unsanitisedRenderer ??= createRenderer(UNSANITISED)),
  options: () => darkdownParser().options,
  escape: escapeHtml,
  attr: (_tag, name, value) => ` ${name}="${escapeHtml(value)}"`,
  flag: (_tag, name) => ` ${name}`,
  end: () => '>',
};

let sanitisedOptions: Options | undefined;

const SANITISED: HtmlOutput = {
  sanitised: true,
  renderer: () => (sanitisedRenderer ??= createRenderer(SANITISED)),
  // markdown-it and its footnote plugin write `<br />`, `<hr />` and `<img … />` as the sanitiser does.
  options: () => (sanitisedOptions ??= { ...darkdownParser().options, xhtmlOut: true }),
  escape: escapeText,
  attr: attributeHtml,
  flag: (tag, name) => attributeHtml(tag, name, ''),
  end: (tag) => (selfClosing(tag) ? ' />' : '>'),
};

let unsanitisedRenderer: Renderer | undefined;
let sanitisedRenderer: Renderer | undefined;

/** Elements markdown-it-footnote's rules open and close, so a raw HTML scope can follow them. */
const FOOTNOTE_ELEMENTS: Readonly<Record<string, { open?: string[]; close?: string[] }>> = {
  footnote_block_open: { open: ['section', 'ol'] },
  footnote_block_close: { close: ['ol', 'section'] },
  footnote_open: { open: ['li'] },
  footnote_close: { close: ['li'] },
};

/** One token of sanitised output, with the raw HTML scope (when the list holds raw HTML) kept up to date. */
function renderFollowed(
  renderer: Renderer,
  tokens: Token[],
  idx: number,
  options: Options,
  env: Env,
  scope: RawHtmlScope,
): string {
  const token = tokens[idx] as Token;
  const rule = renderer.rules[token.type];
  if (rule === undefined) {
    let before = '';
    if (!token.hidden && token.tag !== '') {
      if (token.nesting === 1) before = scope.openElement(token.tag);
      else if (token.nesting === -1) before = scope.closeElement(token.tag);
      else before = scope.whole(`<${token.tag}`);
    }
    return before + renderer.renderToken(tokens, idx, options);
  }
  const html = rule(tokens, idx, options, env, renderer);
  // Raw HTML went through the scope as it was written.
  if (token.type === 'html_block' || token.type === 'html_inline' || holdsRawHtml([token])) return html;
  const footnote = FOOTNOTE_ELEMENTS[token.type];
  if (footnote === undefined) return scope.whole(html) + html;
  let before = footnote.open === undefined ? '' : scope.whole(html);
  for (const name of footnote.open ?? []) before += scope.openElement(name);
  for (const name of footnote.close ?? []) before += scope.closeElement(name);
  return before + html;
}

function renderAll(renderer: Renderer, tokens: Token[], options: Options, env: Env): string {
  const scope = scopeOf(env);
  const rules = renderer.rules;
  let html = '';
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] as Token;
    if (token.type === 'inline') {
      html += renderer.renderInline(token.children ?? [], options, env);
    } else if (scope !== undefined && !scope.failed) {
      html += renderFollowed(renderer, tokens, i, options, env, scope);
    } else {
      const rule = rules[token.type];
      html += rule ? rule(tokens, i, options, env, renderer) : renderer.renderToken(tokens, i, options);
    }
  }
  return html;
}

/** A fence's language as markdown-it reads its info string: the first word, references decoded. */
function fenceLanguage(info: string): string {
  const text = info === '' ? '' : darkdownParser().utils.unescapeAll(info).trim();
  return text.split(/\s+/)[0] ?? '';
}

const rawHtmlRule: RendererRule = (tokens, idx, _options, env) => {
  const scope = scopeOf(env);
  if (scope !== undefined) return scope.raw(tokens[idx]?.content ?? '');
  stateOf(env).htmlCheck.wholeDocument = true;
  return '';
};

/**
 * markdown-it's own rules, written as the sanitiser would write them: text escaped as it escapes text,
 * attributes through the allowlist (URLs with other schemes, empty values and unknown attributes dropped),
 * raw HTML through the sanitiser, tag by tag.
 */
function writeAsSanitised(renderer: Renderer): void {
  const rules = renderer.rules;
  renderer.renderAttrs = (token: Token): string => {
    if (token.attrs === null) return '';
    let html = '';
    for (const [name, value] of token.attrs) html += attributeHtml(token.tag, name, String(value));
    return html;
  };
  renderer.render = (tokens, options, env: Env) => renderAll(renderer, tokens, options, env);
  renderer.renderInline = (tokens, options, env: Env) => renderAll(renderer, tokens, options, env);
  rules.text = (tokens, idx) => escapeText(tokens[idx]?.content ?? '');
  rules.code_inline = (tokens, idx, _options, _env, self) => {
    const token = tokens[idx] as Token;
    return `<code${self.renderAttrs(token)}>${escapeText(token.content)}</code>`;
  };
  rules.code_block = (tokens, idx, _options, _env, self) => {
    const token = tokens[idx] as Token;
    return `<pre${self.renderAttrs(token)}><code>${escapeText(token.content)}</code></pre>\n`;
  };
  rules.fence = (tokens, idx, options) => {
    const token = tokens[idx] as Token;
    const language = fenceLanguage(token.info);
    let attrs = '';
    let cls: string | null = null;
    for (const [name, value] of token.attrs ?? []) {
      if (name === 'class') cls = String(value);
      else attrs += attributeHtml('code', name, String(value));
    }
    if (token.info !== '' && fenceLanguage(token.info) !== '') {
      const languageClass = `${options.langPrefix}${language}`;
      cls = cls === null ? languageClass : `${cls} ${languageClass}`;
    }
    if (cls !== null) attrs = attributeHtml('code', 'class', cls) + attrs;
    const highlighted = highlightCode(token.content, language);
    return `<pre><code${attrs}>${highlighted ?? escapeText(token.content)}</code></pre>\n`;
  };
  rules.html_block = rawHtmlRule;
  rules.html_inline = rawHtmlRule;
}

function renderSource(out: HtmlOutput, source: string, state: DarkdownState): string {
  const env = envOf(state);
  return renderList(out, darkdownParser().parse(source, env), env, 'none', false);
}

/** Darkdown to HTML before sanitising: what the whole-document sanitiser reads. */
export function darkdownToHtml(source: string, ctx?: RenderContext): string {
  const { body, assets } = splitAssetMappings(source);
  return renderSource(UNSANITISED, body, rootState(ctx, assets));
}

/** The page rendered, then sanitised as a whole: for pages whose raw HTML the fast path cannot follow. */
export function renderHtmlWholeDocument(source: string, ctx?: RenderContext): string {
  return sanitizeHtmlOutput(darkdownToHtml(source, ctx));
}

/**
 * Darkdown to sanitised HTML. Everything is written as the sanitiser writes it and raw HTML goes through
 * the sanitiser where it stands, so the page needs no whole-document pass: the same output, several times
 * faster. A page whose raw HTML would restructure the rest (see RawHtmlScope) is sanitised as a whole.
 */
export function renderHtml(source: string, ctx?: RenderContext): string {
  return renderHtmlInPlace(source, ctx) ?? renderHtmlWholeDocument(source, ctx);
}

/** The fast path alone: null for a page that must be sanitised as a whole. */
export function renderHtmlInPlace(source: string, ctx?: RenderContext): string | null {
  const { body, assets } = splitAssetMappings(source);
  const state = rootState(ctx, assets);
  const html = renderSource(SANITISED, body, state);
  return state.htmlCheck.wholeDocument ? null : html;
}
