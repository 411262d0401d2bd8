import type { StateInline, Token } from 'markdown-it';
import { stateOf } from './render-state.ts';
import { lookupVariable, VARIABLE_SOURCE } from './variables.ts';

export const INLINE_TOKEN = 'darkdown_inline';
export const VARIABLE_TOKEN = 'darkdown_variable';

export type BadgeType = 'primary' | 'success' | 'warning' | 'info' | 'error' | 'custom';
const BADGE_TYPES: readonly string[] = ['primary', 'success', 'warning', 'info', 'error', 'custom'];

export type InlineItem =
  | { kind: 'badge'; text: string; type: BadgeType }
  | { kind: 'icon'; classes: string }
  | { kind: 'key'; key: string }
  | { kind: 'glossary'; term: string };

/**
 * Every construct the markdown renderer replaces in place carries the exact source text it came from,
 * and where that text starts in the source the inline rule read (an inline token's content, when read
 * at the top level rather than in an image's text or an inline footnote).
 */
export type RawMeta = { raw: string; at: number };
export type InlineMeta = RawMeta & { item: InlineItem };
export type VariableMeta = RawMeta & { value: string };
/** `page`: the slug the link names, the text it shows when the page's title is not known. */
export type AutoLinkMeta = RawMeta & { autoLink: { title: string; href: string; page: string } };

const INLINE_OPENER = '$inline[';
/** Inline tokens are short; the cap keeps a line full of unclosed openers linear. */
const MAX_INLINE_LENGTH = 300;

function readInlineItem(body: string): InlineItem | null {
  const parts = body.split(',');
  const name = (parts[0] ?? '').trim().toLowerCase();
  const args = parts.slice(1);
  switch (name) {
    case 'badge': {
      const last = (args[args.length - 1] ?? '').trim().toLowerCase();
      // A comma inside the text is kept when the last part is not a badge type.
      if (args.length >= 2 && BADGE_TYPES.includes(last)) {
        return { kind: 'badge', text: args.slice(0, -1).join(',').trim(), type: last as BadgeType };
      }
      return { kind: 'badge', text: args.join(',').trim(), type: 'info' };
    }
    case 'icon':
      return {
        kind: 'icon',
        classes: args
          .join(' ')
          .replace(/[^\w -]/g, '')
          .replace(/\s+/g, ' ')
          .trim(),
      };
    case 'key':
      return { kind: 'key', key: args.join(',').trim() };
    case 'glossary':
      return { kind: 'glossary', term: args.join(',').trim() };
    default:
      return null;
  }
}

/** `$inline[badge,TEXT,TYPE]`, `$inline[icon,CLASSES]`, `$inline[key,KEY]`, `$inline[glossary,TERM]`. */
export function inlineTokenRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x24 /* $ */ || !src.startsWith(INLINE_OPENER, pos)) return false;
  const bodyStart = pos + INLINE_OPENER.length;
  const searchEnd = Math.min(state.posMax, bodyStart + MAX_INLINE_LENGTH);
  let end = bodyStart;
  while (end < searchEnd) {
    const c = src.charCodeAt(end);
    if (c === 0x5d /* ] */ || c === 0x0a) break;
    end += 1;
  }
  if (end >= searchEnd || src.charCodeAt(end) !== 0x5d) return false;
  const item = readInlineItem(src.slice(bodyStart, end));
  if (item === null) return false;
  if (!silent) {
    const token = state.push(INLINE_TOKEN, '', 0);
    const meta: InlineMeta = { raw: src.slice(pos, end + 1), at: pos, item };
    token.meta = meta;
  }
  state.pos = end + 1;
  return true;
}

const VARIABLE_AT = new RegExp(VARIABLE_SOURCE, 'y');

/** `%name%` / `%a.b%`, only when the context gives it a value; otherwise the text stays as written. */
export function variableRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x25 /* % */) return false;
  const variables = stateOf(state.env).ctx.variables;
  if (variables === undefined) return false;
  VARIABLE_AT.lastIndex = state.pos;
  const match = VARIABLE_AT.exec(state.src);
  if (match === null || match.index + match[0].length > state.posMax) return false;
  const value = lookupVariable(variables, match[1] ?? '');
  if (value === undefined) return false;
  if (!silent) {
    const token = state.push(VARIABLE_TOKEN, '', 0);
    token.content = value;
    const meta: VariableMeta = { raw: match[0], at: state.pos, value };
    token.meta = meta;
  }
  state.pos += match[0].length;
  return true;
}

/** A slug segment of an auto link: no spaces, slashes, fragments, queries or brackets. */
export const SLUG = String.raw`[^\s/#?()\[\]\\<>]+`;
export const AUTO_LINK_SOURCE = String.raw`\[auto\$\]\(\/(${SLUG})\/(${SLUG})(#[^\s()<>\\]*)?\)`;
const AUTO_LINK_AT = new RegExp(AUTO_LINK_SOURCE, 'y');
const AUTO_LINK_OPENER = '[auto$](/';

/**
 * `[auto$](/doc/page#fragment)`: a link whose text is the target page's title. Read before markdown-it's
 * own link rule so the exact source text is known (for in-place replacement in markdown output).
 */
export function autoLinkRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x5b /* [ */ || state.linkLevel > 0) return false;
  if (!state.src.startsWith(AUTO_LINK_OPENER, state.pos)) return false;
  AUTO_LINK_AT.lastIndex = state.pos;
  const match = AUTO_LINK_AT.exec(state.src);
  if (match === null || match.index + match[0].length > state.posMax) return false;
  const doc = match[1] ?? '';
  const page = match[2] ?? '';
  const href = `/${doc}/${page}${match[3] ?? ''}`;
  const normalized = state.md.normalizeLink(href);
  if (!state.md.validateLink(normalized)) return false;
  if (!silent) {
    const title = stateOf(state.env).ctx.pageTitles?.get(`${doc}/${page}`) ?? page;
    const open = state.push('link_open', 'a', 1);
    open.attrs = [['href', normalized]];
    const meta: AutoLinkMeta = { raw: match[0], at: state.pos, autoLink: { title, href, page } };
    open.meta = meta;
    const text = state.push('text', '', 0);
    text.content = title;
    state.push('link_close', 'a', -1);
  }
  state.pos += match[0].length;
  return true;
}

export function isAutoLinkOpen(token: Token): boolean {
  return token.type === 'link_open' && token.meta !== null && 'autoLink' in token.meta;
}
