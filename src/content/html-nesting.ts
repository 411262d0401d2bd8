import type { Env, MarkdownItOptions, Renderer, Token } from 'markdown-it';
import { resolveAssetUrl } from './assets.ts';
import { PLUGIN_TOKEN, pluginMeta } from './block-plugin-rule.ts';
import type { HtmlNesting } from './html-plugins.ts';
import { inlineToText } from './inline-text.ts';
import { darkdownParser } from './parser.ts';
import { isInlineOnly, isPlainText } from './plain-text.ts';
import { RawHtmlScope, type ScopeParent } from './raw-html-scope.ts';
import { childState, envOf, stateOf, type DarkdownState } from './render-state.ts';
import { darkdownToText } from './text-renderer.ts';
import { resolveVariables } from './variables.ts';

// The HTML of what a plugin holds, one level down, and of any token list with raw HTML in it
// (src/content/html-renderer.ts makes the renderers and the outputs).

export type Options = Required<MarkdownItOptions>;

/**
 * How one HTML output writes what the renderers produce. `sanitised` writes it as the sanitiser would
 * (the served output); `unsanitised` is the render the whole-document sanitiser reads, kept for pages
 * whose raw HTML only that can follow, and as the reference the fast output is tested against.
 */
export interface HtmlOutput {
  readonly sanitised: boolean;
  renderer(): Renderer;
  options(): Options;
  escape(text: string): string;
  attr(tag: string, name: string, value: string): string;
  flag(tag: string, name: string): string;
  end(tag: string): string;
}

const SCOPE = 'darkdown_raw_html';

export function scopeOf(env: Env | undefined): RawHtmlScope | undefined {
  return env?.[SCOPE] as RawHtmlScope | undefined;
}

export function holdsRawHtml(tokens: readonly Token[]): boolean {
  for (const token of tokens) {
    if (token.type === 'html_block' || token.type === 'html_inline') return true;
    if (token.type === 'inline' && token.children !== null && holdsRawHtml(token.children)) return true;
    if (token.type === PLUGIN_TOKEN && pluginMeta(token).plugin.kind === 'custom-html') return true;
  }
  return false;
}

/** Renders a token list; sanitised output follows raw HTML in a scope of its own (see RawHtmlScope). */
export function renderList(
  out: HtmlOutput,
  tokens: Token[],
  env: Env,
  parent: ScopeParent,
  inline: boolean,
): string {
  const renderer = out.renderer();
  if (!out.sanitised || !holdsRawHtml(tokens)) {
    return inline
      ? renderer.renderInline(tokens, out.options(), env)
      : renderer.render(tokens, out.options(), env);
  }
  const state = stateOf(env);
  const scope = new RawHtmlScope(parent, () => {
    state.htmlCheck.wholeDocument = true;
  });
  env[SCOPE] = scope;
  const html = inline
    ? renderer.renderInline(tokens, out.options(), env)
    : renderer.render(tokens, out.options(), env);
  return html + scope.end();
}

/** Renders the Darkdown a plugin holds, one level down; a class so no closures are made per plugin. */
export class NestedHtml implements HtmlNesting {
  private readonly child: DarkdownState;

  constructor(
    private readonly state: DarkdownState,
    private readonly out: HtmlOutput,
    private readonly env: Env,
  ) {
    this.child = childState(state);
  }

  block(source: string): string {
    if (isPlainText(source)) return source === '' ? '' : `<p>${this.out.escape(source)}</p>\n`;
    const env = envOf(this.child);
    return renderList(this.out, darkdownParser().parse(source, env), env, 'block', false);
  }

  compact(source: string): string {
    if (isPlainText(source)) return this.out.escape(source);
    const md = darkdownParser();
    const env = envOf(this.child);
    if (isInlineOnly(source)) {
      const [inline] = md.parseInline(source, env);
      return renderList(this.out, inline?.children ?? [], env, 'cell', true);
    }
    const tokens = md.parse(source, env);
    const [open, inline, close] = tokens;
    if (
      tokens.length === 3 &&
      open?.type === 'paragraph_open' &&
      close?.type === 'paragraph_close' &&
      inline
    ) {
      return renderList(this.out, inline.children ?? [], env, 'cell', true);
    }
    return renderList(this.out, tokens, env, 'cell', false);
  }

  text(source: string): string {
    return darkdownToText(source, this.child);
  }

  caption(source: string): { html: string; text: string } {
    if (source === '') return { html: '', text: '' };
    if (isPlainText(source) || !isInlineOnly(source)) {
      return { html: this.compact(source), text: this.text(source) };
    }
    // The usual caption, one line of inline Markdown: read once for both (as compact and text read it).
    const env = envOf(this.child);
    const children = darkdownParser().parseInline(source, env)[0]?.children ?? [];
    const text = inlineToText(children).trim();
    return { html: renderList(this.out, children, env, 'cell', true), text };
  }

  plain(value: string): string {
    return this.out.escape(resolveVariables(value, this.state.ctx.variables));
  }

  asset(url: string): string {
    return resolveAssetUrl(url, this.state.assets);
  }

  escape(text: string): string {
    return this.out.escape(text);
  }

  attr(tag: string, name: string, value: string): string {
    return this.out.attr(tag, name, value);
  }

  flag(tag: string, name: string): string {
    return this.out.flag(tag, name);
  }

  end(tag: string): string {
    return this.out.end(tag);
  }

  rawHtml(html: string): string {
    if (!this.out.sanitised) return html;
    const scope = scopeOf(this.env);
    if (scope !== undefined) return scope.raw(html);
    this.state.htmlCheck.wholeDocument = true;
    return '';
  }
}
