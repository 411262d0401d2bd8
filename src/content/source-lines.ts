/** A piece of source text to replace, found again by its exact text (`raw`). */
export interface Replacement {
  raw: string;
  text: string;
  /** an image URL: only counts where a link destination starts (after `(` or `<`) */
  asUrl?: boolean;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

const BLANK_IN_CONTAINER = /^[ \t>]*$/;

function isEscaped(source: string, pos: number): boolean {
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

/**
 * The source of a page as lines (split the way markdown-it splits them: CRLF, CR or LF) and the edits
 * to make to it. Edits are collected by line map and applied at once, leaving every other byte as it was.
 */
export class SourceLines {
  private readonly starts: number[] = [0];
  private readonly lineCount: number;
  private readonly edits: Edit[] = [];
  /** the page's own line break, used for the lines we write (CRLF pages stay CRLF) */
  private readonly eol: string = '\n';

  constructor(private readonly source: string) {
    for (let i = 0; i < source.length; i += 1) {
      const c = source.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue;
      const crlf = c === 0x0d && source.charCodeAt(i + 1) === 0x0a;
      if (this.starts.length === 1) this.eol = crlf ? '\r\n' : source.charAt(i);
      if (crlf) i += 1;
      this.starts.push(i + 1);
    }
    const last = this.starts[this.starts.length - 1];
    this.lineCount = last === source.length ? this.starts.length - 1 : this.starts.length;
  }

  private lineStart(line: number): number {
    return this.starts[line] ?? this.source.length;
  }

  /** The end of a line's text, before its line break. */
  private lineEnd(line: number): number {
    let end = this.lineStart(line + 1);
    if (end > this.lineStart(line) && this.source.charCodeAt(end - 1) === 0x0a) end -= 1;
    if (end > this.lineStart(line) && this.source.charCodeAt(end - 1) === 0x0d) end -= 1;
    return end;
  }

  private isBlank(line: number): boolean {
    return BLANK_IN_CONTAINER.test(this.source.slice(this.lineStart(line), this.lineEnd(line)));
  }

  /**
   * Replaces the lines of a block plugin. What precedes `$plugin[` on its first line (indentation, a list
   * marker, `> `) is kept, and continuation lines are indented to match. Blank lines are added where a
   * neighbour would otherwise run into the replacement (a bold title line would join the paragraph above).
   */
  replaceBlock(map: readonly [number, number], markdown: string): void {
    const [first, after] = map;
    const lineStart = this.lineStart(first);
    const opener = this.source.indexOf('$plugin[', lineStart);
    if (opener < 0 || opener > this.lineEnd(first)) return;
    const prefix = this.source.slice(lineStart, opener);
    const end = this.lineEnd(after - 1);
    if (markdown === '') {
      this.edits.push({ start: opener, end, text: '' });
      return;
    }
    const indent = prefix.replace(/[^\t>]/g, ' ');
    const blank = indent.trimEnd();
    const body = markdown
      .split('\n')
      .map((line, i) => (i === 0 ? line : line === '' ? blank : indent + line))
      .join(this.eol);
    const before =
      first > 0 && !this.isBlank(first - 1) && BLANK_IN_CONTAINER.test(prefix) ? this.eol + prefix : '';
    const trailing = after < this.lineCount && !this.isBlank(after) ? this.eol + blank : '';
    this.edits.push({ start: opener, end, text: before + body + trailing });
  }

  /** Finds each replacement's text in order within the block's lines, skipping code spans and escapes. */
  replaceInline(map: readonly [number, number], replacements: readonly Replacement[]): void {
    const from = this.lineStart(map[0]);
    const region = this.source.slice(from, this.lineStart(map[1]));
    let spans: Array<[number, number]> | undefined;
    const inCode = (pos: number): boolean => {
      spans ??= codeSpans(region, 0, region.length);
      return spans.some(([s, e]) => pos >= s && pos < e);
    };
    const opensUrl = (pos: number): boolean => /[(<]\s*$/.test(region.slice(Math.max(0, pos - 8), pos));
    let cursor = 0;
    for (const r of replacements) {
      let at = region.indexOf(r.raw, cursor);
      while (at >= 0 && (isEscaped(region, at) || inCode(at) || (r.asUrl === true && !opensUrl(at)))) {
        at = region.indexOf(r.raw, at + 1);
      }
      if (at < 0) continue;
      this.edits.push({ start: from + at, end: from + at + r.raw.length, text: r.text });
      cursor = at + r.raw.length;
    }
  }

  apply(): string {
    if (this.edits.length === 0) return this.source;
    const edits = [...this.edits].sort((a, b) => a.start - b.start);
    let out = '';
    let pos = 0;
    for (const edit of edits) {
      if (edit.start < pos) continue;
      out += this.source.slice(pos, edit.start) + edit.text;
      pos = edit.end;
    }
    return out + this.source.slice(pos);
  }
}
