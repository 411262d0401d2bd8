import type { Env } from 'markdown-it';
import { resolveAssetUrl, splitAssetMappings } from './assets.ts';
import { escapeMarkdownText } from './escape.ts';
import { pluginToMarkdown, type MarkdownNesting } from './markdown-plugins.ts';
import { safeMarkdown, splice, type DarkdownHooks } from './markdown-splice.ts';
import { darkdownParser, tokensInSourceOrder } from './parser.ts';
import { isPlainText } from './plain-text.ts';
import type { Plugin } from './plugin-data.ts';
import { childState, envOf, rootState, type DarkdownState } from './render-state.ts';
import { darkdownToText } from './text-renderer.ts';
import type { RenderContext } from './types.ts';
import { resolveVariables } from './variables.ts';

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

  safeBlock(markdown: string): string {
    return safeMarkdown(markdown, 'block');
  }
}

/** A Darkdown render as splicing sees it: plugins converted one level down, the same state again. */
class DarkdownReading implements DarkdownHooks {
  constructor(private readonly state: DarkdownState) {}

  plugin(plugin: Plugin): string {
    return pluginToMarkdown(plugin, new NestedMarkdown(this.state));
  }

  env(): Env {
    return envOf(this.state);
  }
}

/**
 * Darkdown to portable Markdown by splicing, not re-printing: the source stays byte for byte except where
 * a plugin block, an inline token, an auto link, a variable or an asset URL stood, and where HTML or a
 * link had to be made safe. Token line maps locate blocks; inline constructs are found again within
 * their block's lines, in order, outside code spans.
 */
export function darkdownToMarkdown(source: string, state: DarkdownState): string {
  if (isPlainText(source)) return source;
  const md = darkdownParser();
  const env = envOf(state);
  const tokens = tokensInSourceOrder(md.parse(source, env), env);
  return splice(source, tokens, { md, env, darkdown: new DarkdownReading(state) }, state);
}

export function renderMarkdown(source: string, ctx?: RenderContext): string {
  const { body, assets } = splitAssetMappings(source);
  const state = rootState(ctx, assets);
  let markdown = darkdownToMarkdown(body, state);
  if (state.markdownCheck.recheck) markdown = safeMarkdown(markdown, 'block');
  // The mapping comments are dropped (their URLs are now inline); keep the page's final line break.
  return body.length < source.length ? `${markdown.trimEnd()}\n` : markdown;
}
