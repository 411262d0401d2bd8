/** What may precede the text of a paragraph's continuation line: indentation and quote markers. */
const LINE_PREFIX = /[ \t>]*/y;

/** Whether the character at `pos` follows an odd number of backslashes. */
export function isEscaped(source: string, pos: number): boolean {
  let backslashes = 0;
  for (let p = pos - 1; p >= 0 && source.charCodeAt(p) === 0x5c; p -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

function runEnd(source: string, pos: number, to: number): number {
  let p = pos;
  while (p < to && source.charCodeAt(p) === 0x60 /* ` */) p += 1;
  return p;
}

/** CommonMark code spans in [from, to): a backtick run closed by the next run of the same length. */
function codeSpans(source: string, from: number, to: number): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let i = from;
  while (i < to) {
    const c = source.charCodeAt(i);
    if (c === 0x5c /* \ */) {
      i += 2;
      continue;
    }
    if (c !== 0x60) {
      i += 1;
      continue;
    }
    const openEnd = runEnd(source, i, to);
    const length = openEnd - i;
    let k = openEnd;
    let close = -1;
    while (k < to) {
      if (source.charCodeAt(k) !== 0x60) {
        k += 1;
        continue;
      }
      const end = runEnd(source, k, to);
      if (end - k === length) {
        close = end;
        break;
      }
      k = end;
    }
    if (close < 0) {
      i = openEnd;
    } else {
      spans.push([i, close]);
      i = close;
    }
  }
  return spans;
}

/** The end of `rest` (lines of inline source after the first) matched at `pos`, across line prefixes. */
function matchRestLines(text: string, pos: number, rest: readonly string[]): number {
  let p = pos;
  for (const line of rest) {
    if (text.charCodeAt(p) === 0x0d) p += 1;
    if (text.charCodeAt(p) === 0x0a) p += 1;
    else if (text.charCodeAt(p - 1) !== 0x0d) return -1;
    LINE_PREFIX.lastIndex = p;
    LINE_PREFIX.test(text);
    p = LINE_PREFIX.lastIndex;
    const trimmed = line.replace(/^[ \t]+/, '');
    if (!text.startsWith(trimmed, p)) return -1;
    p += trimmed.length;
  }
  return p;
}

/** Inline source text searched for replacements: code spans and escapes are skipped. */
export class InlineSearch {
  private spans: Array<[number, number]> | undefined;

  constructor(private readonly text: string) {}

  private readonly places = new Map<string, number[]>();

  private inCode(pos: number): boolean {
    this.spans ??= codeSpans(this.text, 0, this.text.length);
    // The spans are in order and apart: the last one starting at or before pos is the only candidate.
    let low = 0;
    let high = this.spans.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const span = this.spans[mid];
      if (span === undefined) break;
      if (span[0] > pos) high = mid - 1;
      else if (pos >= span[1]) low = mid + 1;
      else return true;
    }
    return false;
  }

  /** Every place a one-line `raw` is found, in order (outside code spans and escapes). */
  private placesOf(raw: string): number[] {
    let places = this.places.get(raw);
    if (places === undefined) {
      places = [];
      for (
        let found = this.find(raw, 0, false);
        found !== null;
        found = this.find(raw, found[0] + 1, false)
      ) {
        places.push(found[0]);
      }
      this.places.set(raw, places);
    }
    return places;
  }

  /** How many places of a one-line `raw` come before `at`, when `at` is one of them; otherwise null. */
  ordinal(raw: string, at: number): number | null {
    const places = this.placesOf(raw);
    const index = firstAtOrAfter(places, at);
    return places[index] === at ? index : null;
  }

  /** The start of the place of a one-line `raw` that is `k` places after `from`, if there is one. */
  nth(raw: string, from: number, k: number): number | null {
    const places = this.placesOf(raw);
    return places[firstAtOrAfter(places, from) + k] ?? null;
  }

  private opensUrl(pos: number): boolean {
    return /[(<]\s*$/.test(this.text.slice(Math.max(0, pos - 8), pos));
  }

  /** Where `raw` starts and ends at or after `from`; across line prefixes when it spans lines. */
  find(raw: string, from: number, asUrl: boolean): [number, number] | null {
    const { text } = this;
    const lines = raw.includes('\n') ? raw.split('\n') : null;
    const first = lines?.[0] ?? raw;
    for (let at = text.indexOf(first, from); at >= 0; at = text.indexOf(first, at + 1)) {
      if (isEscaped(text, at) || this.inCode(at) || (asUrl && !this.opensUrl(at))) continue;
      const end =
        lines === null ? at + first.length : matchRestLines(text, at + first.length, lines.slice(1));
      if (end >= 0) return [at, end];
    }
    return null;
  }
}

/** The index of the first of sorted numbers that is at least `at` (their length if none is). */
function firstAtOrAfter(sorted: readonly number[], at: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((sorted[mid] ?? at) < at) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Where an inline token's content starts in the text searched (a block's lines, with their prefixes). */
export interface ContentAnchor {
  content: string;
  start: number;
  /** whether the content stands there as it is (a table cell's `\\|` is `|` in its content) */
  verbatim: boolean;
  /**
   * for content across lines: where each of its lines starts, in the content and in the text
   * searched (whose lines have the prefixes the content lacks); absent when a line is not found
   * as it is there (a tab markdown-it turned into spaces)
   */
  lines?: ReadonlyArray<readonly [number, number]>;
  /** the text searched is the content itself */
  itself?: boolean;
}

/**
 * Where a one-line `raw`, read at `at` in an inline token's content, is in the text searched: on a
 * one-line content at the same distance from the content's start; across lines (whose prefixes the
 * content lacks) at the same distance from its line's start; where neither is known (a cell whose
 * pipes were escaped, a line markdown-it changed) the same number of places of `raw` after the
 * content's start. Null when that place does not hold `raw`.
 */
export function placed(
  text: string,
  inContent: InlineSearch,
  search: InlineSearch,
  anchor: ContentAnchor,
  raw: string,
  at: number,
): [number, number] | null {
  if (raw.includes('\n')) return null;
  let start: number | null = anchor.start + at;
  if (anchor.itself === true) start = at;
  else if (anchor.lines !== undefined) {
    // The last line starting at or before `at`.
    let low = 0;
    let high = anchor.lines.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((anchor.lines[mid]?.[0] ?? 0) <= at) low = mid;
      else high = mid - 1;
    }
    const [contentStart, textStart] = anchor.lines[low] ?? [0, anchor.start];
    start = textStart + (at - contentStart);
  } else if (!anchor.verbatim || anchor.content.includes('\n')) {
    const k = inContent.ordinal(raw, at);
    start = k === null ? null : search.nth(raw, anchor.start, k);
  }
  return start !== null && text.startsWith(raw, start) ? [start, start + raw.length] : null;
}
