export interface PluginExtent {
  /** offset of the JSON object's `{` */
  jsonStart: number;
  /** offset just past its `}` */
  jsonEnd: number;
  /** offset just past the closing `]$` */
  closeEnd: number;
}

/**
 * `{` offset → offset of the `}` that closes it, or -1 when it has none (unclosed, closed by `]`, or a
 * line break inside a string). Filled by every scan, for every brace it passes outside strings: a scan
 * from a later `{` would see the same characters in the same state, so it can reuse the answer. This
 * keeps a page of thousands of unclosed `$plugin[{` lines linear instead of quadratic.
 */
export type CloseCache = Map<number, number>;

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const DOLLAR = 0x24;
/** stands for a `[` on the stack: only `{` positions are worth caching */
const BRACKET = -1;

function skipWhitespace(src: string, pos: number, limit: number): number {
  let p = pos;
  while (p < limit) {
    const c = src.charCodeAt(p);
    if (c !== SPACE && c !== TAB && c !== LF && c !== CR) break;
    p += 1;
  }
  return p;
}

/**
 * Brackets are counted outside strings only, so `]`, `$` and `]$` inside strings are content. A raw line
 * break inside a string ends the attempt at once, since JSON forbids it: a stray quote then costs one
 * line of scanning, not the rest of the page.
 */
function matchBrace(src: string, start: number, limit: number, cache: CloseCache): number {
  const stack: number[] = [];
  let inString = false;
  for (let p = start; p < limit; p += 1) {
    const c = src.charCodeAt(p);
    if (inString) {
      if (c === BACKSLASH) p += 1;
      else if (c === QUOTE) inString = false;
      else if (c === LF || c === CR) break;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE) stack.push(p);
    else if (c === OPEN_BRACKET) stack.push(BRACKET);
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      const open = stack.pop();
      if (open !== undefined && open !== BRACKET) cache.set(open, c === CLOSE_BRACE ? p : -1);
      if (stack.length === 0) return cache.get(start) ?? -1;
    }
  }
  for (const open of stack) if (open !== BRACKET) cache.set(open, -1);
  return -1;
}

/**
 * Finds where a block plugin's JSON object ends by reading it. Returns null when the text from `pos` is
 * not one object followed by `]$` and the end of the line.
 */
export function scanPluginJson(
  src: string,
  pos: number,
  limit: number,
  cache: CloseCache,
): PluginExtent | null {
  const jsonStart = skipWhitespace(src, pos, limit);
  if (src.charCodeAt(jsonStart) !== OPEN_BRACE) return null;
  const close = cache.get(jsonStart) ?? matchBrace(src, jsonStart, limit, cache);
  if (close < 0) return null;
  const jsonEnd = close + 1;
  const closer = skipWhitespace(src, jsonEnd, limit);
  if (
    closer + 2 > limit ||
    src.charCodeAt(closer) !== CLOSE_BRACKET ||
    src.charCodeAt(closer + 1) !== DOLLAR
  ) {
    return null;
  }
  const closeEnd = closer + 2;
  for (let q = closeEnd; q < limit; q += 1) {
    const c = src.charCodeAt(q);
    if (c === LF) break;
    if (c !== SPACE && c !== TAB && c !== CR) return null;
  }
  return { jsonStart, jsonEnd, closeEnd };
}
