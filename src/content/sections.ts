import { splitAssetMappings } from './assets.ts';
import { inlineToText } from './inline-text.ts';
import { darkdownParser } from './parser.ts';
import { envOf, rootState } from './render-state.ts';
import { tokensToText } from './text-renderer.ts';
import type { RenderContext } from './types.ts';

export interface ContentSection {
  heading: string | null;
  anchor: string | null;
  text: string;
}

/**
 * Plain text split into sections at each top-level H2 (an H2 inside a list, quote or plugin does not
 * split). The part before the first H2 has heading and anchor null and is left out when it is empty.
 * Anchors are the ids the HTML output gives the same headings, duplicates numbered alike.
 */
export function extractSections(source: string, ctx?: RenderContext): ContentSection[] {
  const { body, assets } = splitAssetMappings(source);
  const state = rootState(ctx, assets);
  const tokens = darkdownParser().parse(body, envOf(state));
  const sections: ContentSection[] = [];
  let heading: string | null = null;
  let anchor: string | null = null;
  let from = 0;
  const close = (to: number): void => {
    const text = tokensToText(tokens, from, to, state);
    if (heading !== null || text !== '') sections.push({ heading, anchor, text });
  };
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i];
    if (token?.type !== 'heading_open' || token.tag !== 'h2' || token.level !== 0) continue;
    close(i);
    const inline = tokens[i + 1];
    heading = inlineToText(inline?.type === 'inline' ? inline.children : null).trim();
    anchor = String(token.attrGet('id') ?? '');
    from = i + 3;
  }
  close(tokens.length);
  return sections;
}
