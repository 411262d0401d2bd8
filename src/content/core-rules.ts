import type { StateCore, Token } from 'markdown-it';
import { ASSET_URL } from './assets.ts';
import { inlineToText } from './inline-text.ts';
import { isAutoLinkOpen, type AutoLinkMeta } from './inline-rules.ts';
import { stateOf } from './render-state.ts';

export type AssetMeta = { raw: string; asset: string };

function resolveImages(state: StateCore, children: Token[], assets: ReadonlyMap<string, string>): void {
  for (const token of children) {
    if (token.type !== 'image') continue;
    const src = token.attrGet('src');
    if (typeof src !== 'string') continue;
    const match = ASSET_URL.exec(src);
    const url = match && assets.get(match[1] ?? '');
    if (url === undefined || url === null) continue;
    // A mapping to a URL markdown-it would refuse in the image itself leaves `asset:ID` unresolved.
    if (!state.md.validateLink(state.md.normalizeLink(url))) continue;
    token.attrSet('src', url);
    const meta: AssetMeta = { raw: src, asset: url };
    token.meta = { ...token.meta, ...meta };
  }
}

/** Images naming `asset:ID` take the URL the page's mapping comments give. */
export function assetRule(state: StateCore): void {
  const { assets } = stateOf(state.env);
  // An image can only name an asset its source spells out; most (nested) sources name none.
  if (assets.size === 0 || !state.src.includes('asset:')) return;
  for (const token of state.tokens) {
    if (token.type === 'inline' && token.children !== null) resolveImages(state, token.children, assets);
  }
}

/** Headings get `id` = their anchor, deduplicated within the page (see AnchorRegistry). */
export function headingIdRule(state: StateCore): void {
  const { anchors } = stateOf(state.env);
  const tokens = state.tokens;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i];
    if (token?.type !== 'heading_open') continue;
    const inline = tokens[i + 1];
    token.attrSet('id', anchors.claim(inline?.type === 'inline' ? anchorText(inline.children) : ''));
  }
}

/**
 * The text a heading's anchor is made of: its text, an [auto$] link counting as the slug it names
 * rather than that page's title. An anchor then depends on the page's own source alone, so the
 * search index (which derives its sections without other pages' titles) names the ids the HTML has,
 * and renaming the linked page moves no anchor of this one.
 */
function anchorText(children: readonly Token[] | null): string {
  if (children === null) return '';
  let text = '';
  let from = 0;
  for (let i = 0; i < children.length; i += 1) {
    const token = children[i];
    if (token === undefined || !isAutoLinkOpen(token)) continue;
    text += inlineToText(children.slice(from, i)) + (token.meta as AutoLinkMeta).autoLink.page;
    while (i < children.length && children[i]?.type !== 'link_close') i += 1;
    from = i + 1;
  }
  return text + inlineToText(children.slice(from));
}

export function assetMeta(token: Token): AssetMeta | null {
  const meta = token.meta as Partial<AssetMeta> | null;
  return meta && typeof meta.raw === 'string' && typeof meta.asset === 'string' ? (meta as AssetMeta) : null;
}
