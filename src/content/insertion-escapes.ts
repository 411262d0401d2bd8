import type { Env, Token } from 'markdown-it';
import { INLINE_TOKEN, VARIABLE_TOKEN, type InlineMeta } from './inline-rules.ts';
import { inlineItemText } from './inline-text.ts';
import { darkdownParser, gfmParser } from './parser.ts';
import { isEscaped } from './inline-search.ts';
import type { Replacement } from './source-lines.ts';
import { TASK_TOKEN } from './task-list-rule.ts';

/** Delimiters whose reading depends on the characters beside them (emphasis, strikethrough). */
const DELIMITERS = '*_~';
/** Characters next to which an insertion is read again (see readsAsBefore): delimiters, and what joins an address. */
const NEIGHBOURS = `${DELIMITERS}@:/.-+`;

/** Whether `char` is one character of `set` ('' is in every string). */
const oneOf = (set: string, char: string): boolean => char.length === 1 && set.includes(char);

/** How many times a token's text ends (`fromEnd`) or starts with `char`. */
function runInText(text: string, char: string, fromEnd: boolean): number {
  let n = 0;
  while (n < text.length && text.charAt(fromEnd ? text.length - 1 - n : n) === char) n += 1;
  return n;
}

/** Where the run of unescaped `char` that holds `pos` starts and ends. */
function runAround(content: string, char: string, pos: number): [number, number] {
  let start = pos;
  while (start > 0 && content.charAt(start - 1) === char && !isEscaped(content, start - 1)) start -= 1;
  let end = pos + 1;
  while (content.charAt(end) === char) end += 1;
  return [start, end];
}

interface Reading {
  open: boolean;
  close: boolean;
}

/**
 * Whether a run of delimiters may open and close, as markdown-it reads it between `before` and
 * `after` (up to two characters each, for surrogate pairs; '' at the text's start or end).
 */
function reading(before: string, run: string, after: string): Reading {
  const md = darkdownParser();
  const state = new md.inline.State(before + run + after, md, {}, []);
  const scanned = state.scanDelims(before.length, run.charAt(0) !== '_');
  return { open: scanned.can_open, close: scanned.can_close };
}

/** Whether a run next to an insertion that markdown-it left as text would read otherwise now. */
function keepsItsPart(token: Token | undefined, was: Reading, now: Reading): 'kept' | 'escape' {
  return token?.type === 'text' && (was.open !== now.open || was.close !== now.close) ? 'escape' : 'kept';
}

const escapeAt = (content: string, at: number): Replacement => {
  const char = content.charAt(at);
  return { raw: char, text: `\\${char}`, at, escapes: true };
};

/**
 * What keeps the characters next to text inserted in place of a Darkdown construct (a variable's
 * value, a badge's text, an icon's nothing) reading as they did around the construct's source:
 * - a run of emphasis or strikethrough delimiters that markdown-it left as text, which next to the
 *   inserted text could open or close (`a*%v%*` is no emphasis: `*` after a letter and before `%`
 *   cannot open; `a*Value*` is), is escaped;
 * - a `<` before it that starts no tag yet (`<`, `</`, `<a`, `<div `…), which the inserted text could
 *   end as a tag (`<%v%>` is text, `<Value>` a tag the allowlist drops), is escaped.
 * Escaped, characters stay the text they were. What escaping cannot keep (a delimiter that opened or
 * closed and next to the value would not, an address the value completes) readsAsBefore finds;
 * `delimited` says whether this insertion has a neighbour that may need it. `at`, `raw`: the
 * construct's place in the content and its source; `text`: what replaces it; `index`: its token
 * among `children`.
 */
export function insertionEscapes(
  children: readonly Token[],
  index: number,
  content: string,
  at: number,
  raw: string,
  text: string,
): { before: Replacement[]; after: Replacement[]; delimited: boolean } {
  const before: Replacement[] = [];
  const after: Replacement[] = [];
  const end = at + raw.length;
  const previous = children[index - 1];
  const char = content.charAt(at - 1);
  /** a `<` before the value that a backslash cannot keep text: the output is read again */
  let unescapedOpener = false;
  if (oneOf(DELIMITERS, char) && !isEscaped(content, at - 1)) {
    const [start] = runAround(content, char, at - 1);
    const run = content.slice(start, at);
    const lead = content.slice(Math.max(0, start - 2), start);
    const was = reading(lead, run, raw.slice(0, 2));
    const now = reading(lead, run, (text + content.slice(end, end + 2)).slice(0, 2));
    const part = keepsItsPart(previous, was, now);
    // A run markdown-it split (part text, part emphasis) is wrapped: escaping part of it changes the rest.
    if (part === 'escape' && runInText(previous?.content ?? '', char, true) >= run.length) {
      for (let p = start; p < at; p += 1) before.push(escapeAt(content, p));
    }
  } else if (previous?.type === 'text') {
    // The last `<` of the text before, with no `>` after it, when the text runs as it is up to the
    // construct: the inserted text could end a tag it starts (`<%v%>`, `<a%v%>`, `<div %v%>`).
    const lt = previous.content.lastIndexOf('<');
    const tail = lt < 0 ? '' : previous.content.slice(lt);
    const opener = at - tail.length;
    if (
      lt >= 0 &&
      !tail.includes('>') &&
      /^<(?:[A-Za-z/!?]|$)/.test(tail) &&
      content.slice(opener, at) === tail &&
      !isEscaped(content, opener)
    ) {
      // Where a definition's address starts (`[x]: ` opening the line), `\<` would make the line a
      // definition: the value is set apart in span tags instead, which no address holds.
      const line = content.slice(content.lastIndexOf('\n', opener - 1) + 1, opener);
      if (DEFINITION_START.test(line)) unescapedOpener = true;
      else before.push(escapeAt(content, opener));
    }
  }
  const next = children[index + 1];
  const following = content.charAt(end);
  if (oneOf(DELIMITERS, following)) {
    const [, stop] = runAround(content, following, end);
    const run = content.slice(end, stop);
    const trail = content.slice(stop, stop + 2);
    const was = reading(raw.slice(-2), run, trail);
    const now = reading((content.slice(Math.max(0, at - 2), at) + text).slice(-2), run, trail);
    const part = keepsItsPart(next, was, now);
    if (part === 'escape' && runInText(next?.content ?? '', following, false) >= run.length) {
      for (let p = end; p < stop; p += 1) after.push(escapeAt(content, p));
    }
  }
  const near = (char: string) => oneOf(NEIGHBOURS, char);
  return { before, after, delimited: unescapedOpener || near(char) || near(following) };
}

/** A line's start up to where a link reference definition's address would begin. */
const DEFINITION_START = /^[ \t]*\[(?:[^\\\]]|\\.)+\]:[ \t]*$/;

/** What a reader sees of inline tokens: their text, and a mark for every other token but raw HTML. */
function seen(tokens: readonly Token[]): string {
  let out = '';
  for (const token of tokens) {
    if (token.type === 'text' || token.type === 'code_inline' || token.type === VARIABLE_TOKEN) {
      out += token.content;
    } else if (token.type === INLINE_TOKEN) out += inlineItemText(token.meta as InlineMeta);
    else if (token.type === TASK_TOKEN) out += (token.meta as { raw: string }).raw;
    else if (token.type === 'softbreak' || token.type === 'hardbreak') out += '\n';
    else if (token.type !== 'html_inline') out += `\u0000${token.type}\u0000`;
  }
  return out;
}

/**
 * Whether the Markdown made of an inline token (`spliced`) reads as the token's children did: the
 * same text in the same emphasis, links and other constructs. A value the `<span>` tags then hold
 * reads as its source did: their `<` and `>` flank it as `%` and `$` did, and they part it from the
 * text an address would join it to.
 */
export function readsAsBefore(children: readonly Token[], spliced: string, env: Env): boolean {
  // The page's link references and footnote definitions, in an env of its own: reading adds to it.
  const footnotes = env.footnotes as { refs?: unknown; list?: Array<Record<string, unknown>> } | undefined;
  const list = footnotes?.list?.map((entry) => ({ ...entry }));
  const own: Env = { references: env.references, footnotes: footnotes && { refs: footnotes.refs, list } };
  const [inline] = gfmParser(true).parseInline(spliced, own);
  return seen(inline?.children ?? []) === seen(children);
}
