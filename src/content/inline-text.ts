import type { Token } from 'markdown-it';
import { INLINE_TOKEN, VARIABLE_TOKEN, type InlineMeta } from './inline-rules.ts';
import { UNSAFE_LINK_TOKEN } from './link-safety.ts';
import { TASK_TOKEN } from './task-list-rule.ts';

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  copy: '©',
  reg: '®',
  trade: '™',
};

/** Decodes the entities plain text commonly holds; an unknown named entity stays as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
        ? String.fromCodePoint(code)
        : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const BLOCK_TAGS = new Set(
  'p div h1 h2 h3 h4 h5 h6 li tr br hr ul ol table section blockquote pre figure details summary'.split(' '),
);
/** Elements whose content is not text a reader sees. */
const HIDDEN_TAGS = new Set(['script', 'style', 'textarea', 'noscript', 'template']);
const TAG_NAME = /^\/?([a-zA-Z][\w-]*)/;

/**
 * The text of an HTML fragment: comments and hidden elements dropped, block tags as line breaks, a `<`
 * that starts no tag kept as text. A single forward scan: this reads user HTML, so no regex that could
 * backtrack over a long run of `<`.
 */
export function htmlToText(html: string): string {
  if (!html.includes('<')) return decodeEntities(html).trim();
  const lower = html.toLowerCase();
  let out = '';
  let i = 0;
  let gt = -1;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      out += html.slice(i);
      break;
    }
    out += html.slice(i, lt);
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (gt <= lt) gt = html.indexOf('>', lt + 1);
    if (gt < 0) {
      out += html.slice(lt);
      break;
    }
    const name = TAG_NAME.exec(html.slice(lt + 1, Math.min(gt, lt + 40)))?.[1]?.toLowerCase();
    if (name === undefined) {
      out += '<';
      i = lt + 1;
      continue;
    }
    i = gt + 1;
    if (BLOCK_TAGS.has(name)) out += '\n';
    if (HIDDEN_TAGS.has(name) && html[lt + 1] !== '/') {
      const close = lower.indexOf(`</${name}`, i);
      const closeEnd = close < 0 ? -1 : html.indexOf('>', close);
      i = closeEnd < 0 ? html.length : closeEnd + 1;
    }
  }
  return decodeEntities(out)
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Removes trailing line breaks without a regex (`/\n+$/` is quadratic on long runs of blank lines). */
export function trimTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && (text.charCodeAt(end - 1) === 0x0a || text.charCodeAt(end - 1) === 0x0d)) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

export function inlineItemText(meta: InlineMeta): string {
  const { item } = meta;
  switch (item.kind) {
    case 'badge':
      return item.text;
    case 'icon':
      return '';
    case 'key':
      return item.key;
    case 'glossary':
      return item.term;
  }
}

/** Plain text of an inline token's children: markup dropped, plugins' inline tokens as their text. */
export function inlineToText(children: readonly Token[] | null): string {
  if (children === null) return '';
  let out = '';
  for (const token of children) {
    switch (token.type) {
      case 'text':
      case 'code_inline':
      case VARIABLE_TOKEN:
      case UNSAFE_LINK_TOKEN:
        out += token.content;
        break;
      case 'softbreak':
        out += ' ';
        break;
      case 'hardbreak':
        out += '\n';
        break;
      case 'image':
        out += inlineToText(token.children);
        break;
      case 'html_inline':
        if (/^<br\s*\/?>$/i.test(token.content)) out += '\n';
        break;
      case INLINE_TOKEN:
        out += inlineItemText(token.meta as InlineMeta);
        break;
      case TASK_TOKEN:
        out += token.meta?.checked === true ? '[x] ' : '[ ] ';
        break;
      default:
        break;
    }
  }
  return out;
}
