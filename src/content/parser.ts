import { highlightCode } from './highlight.ts';
import MarkdownItConstructor, { type Env, type MarkdownIt, type Token } from 'markdown-it';
import footnote from 'markdown-it-footnote';
import { blockPluginRule } from './block-plugin-rule.ts';
import { assetRule, headingIdRule } from './core-rules.ts';
import { autoLinkRule, inlineTokenRule, variableRule } from './inline-rules.ts';
import { guardLinks } from './link-safety.ts';
import { useParseShortcuts } from './parse-shortcuts.ts';
import { useDirectStates } from './parse-states.ts';
import { taskListRule } from './task-list-rule.ts';

/** The host and path after `www.`; sticky, so it reads at the position linkify-it gives. */
const WWW_TAIL = /[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)+(?:[/?#][^\s<]*)?/uy;
/** GFM trims trailing punctuation from `www.` autolinks; a closing parenthesis is treated the same way. */
const TRAILING_PUNCTUATION = new Set([...'?!.,:*_~\'")']);

function wwwLinkLength(text: string, pos: number): number {
  WWW_TAIL.lastIndex = pos;
  const match = WWW_TAIL.exec(text);
  if (match === null) return 0;
  let length = match[0].length;
  while (length > 0 && TRAILING_PUNCTUATION.has(match[0].charAt(length - 1))) length -= 1;
  return length;
}
const WWW = /www\./i;
const SCHEME_CHAR = /[a-z0-9+.-]/i;

/**
 * Whether linkify could find a link in the text: an email, a `www.` host, or a `scheme://` that is not
 * the destination of a Markdown link (`](https://…)`, which is already a link). linkify-it's own test
 * runs a very large regex; most paragraphs fail this cheap check, including those holding only links.
 */
function mayLink(text: string): boolean {
  if (text.includes('@') || WWW.test(text)) return true;
  for (let at = text.indexOf('://'); at >= 0; at = text.indexOf('://', at + 3)) {
    let start = at;
    while (start > 0 && SCHEME_CHAR.test(text.charAt(start - 1))) start -= 1;
    if (start < 2 || text.charAt(start - 1) !== '(' || text.charAt(start - 2) !== ']') return true;
  }
  return false;
}

const SOURCE_ORDER = 'darkdown_source_order';

/**
 * markdown-it-footnote moves footnote definitions to the end, and drops those never referred to and all
 * but the last of a repeated label; a reader without footnotes reads every one where it stands. The
 * token list before that (the rule replaces the list, so keeping it costs nothing) is the source's.
 */
function keepSourceOrder(state: { tokens: Token[]; env: Env }): void {
  state.env[SOURCE_ORDER] = state.tokens;
}

/** Block tokens in source order, every footnote definition where it was written. */
export function tokensInSourceOrder(tokens: Token[], env: Env): Token[] {
  return (env[SOURCE_ORDER] as Token[] | undefined) ?? tokens;
}

/** GitHub-flavoured Markdown, and with `darkdown` the Darkdown constructs on top. */
function createParser(darkdown: boolean, linkify = true): MarkdownIt {
  // Fences in a language highlight.js knows are highlighted as the page renders (highlight.ts); the
  // fast path's own fence rule (html-renderer.ts) calls the same function.
  const md = new MarkdownItConstructor({
    html: true,
    linkify,
    typographer: false,
    highlight: (code, language) => highlightCode(code, language) ?? '',
  });
  useDirectStates(md);
  useParseShortcuts(md);
  // GFM autolinks: URLs with a scheme, emails and `www.` hosts, but not bare `example.com` (linkify-it's
  // fuzzy links), which GitHub does not link and which breaks CommonMark conformance.
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: true });
  // Nor protocol-relative `//host` text, which GitHub leaves alone.
  md.linkify.add('//', null);
  md.linkify.add('www.', {
    validate: wwwLinkLength,
    normalize(match: { url: string }): void {
      match.url = `http://${match.url}`;
    },
  });
  const fullTest = md.linkify.test.bind(md.linkify);
  md.linkify.test = (text: string): boolean => mayLink(text) && fullTest(text);
  md.use(footnote);
  md.core.ruler.before('footnote_tail', 'darkdown_source_order', keepSourceOrder);
  guardLinks(md);
  if (!darkdown) return md;
  md.block.ruler.before('fence', 'darkdown_plugin', blockPluginRule, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  md.inline.ruler.before('link', 'darkdown_auto_link', autoLinkRule);
  md.inline.ruler.before('link', 'darkdown_inline', inlineTokenRule);
  md.inline.ruler.before('link', 'darkdown_variable', variableRule);
  md.core.ruler.push('darkdown_assets', assetRule);
  md.core.ruler.push('darkdown_task_lists', taskListRule);
  md.core.ruler.push('darkdown_heading_ids', headingIdRule);
  return md;
}

let parser: MarkdownIt | undefined;
const gfm = new Map<boolean, MarkdownIt>();
let commonMark: MarkdownIt | undefined;

/**
 * The one markdown-it instance every render uses. Building it costs far more than a render, and it holds
 * no per-render state (that travels in `env`), so sharing it is safe.
 */
export function darkdownParser(): MarkdownIt {
  parser ??= createParser(true);
  return parser;
}

/**
 * Markdown as a reader of Markdown output reads it, for checking that output: GFM without Darkdown, with
 * or without bare URLs linked (linkify-it takes characters into a URL that are Markdown to a reader that
 * does not link them, `https://x.test/"[a](…)"`).
 */
export function gfmParser(linkify: boolean): MarkdownIt {
  let md = gfm.get(linkify);
  if (md === undefined) {
    md = createParser(false, linkify);
    gfm.set(linkify, md);
  }
  return md;
}

/** Markdown as a reader without GFM reads it: tables and footnotes are paragraphs to it. */
export function commonMarkParser(): MarkdownIt {
  if (commonMark === undefined) {
    commonMark = new MarkdownItConstructor('commonmark', { html: true });
    useDirectStates(commonMark);
    useParseShortcuts(commonMark);
    guardLinks(commonMark);
  }
  return commonMark;
}
