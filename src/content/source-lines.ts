import { InlineSearch, placed, type ContentAnchor } from './inline-search.ts';

/** A piece of source text to replace, found again by its exact text (`raw`). */
export interface Replacement {
  raw: string;
  text: string;
  /** an image URL: only counts where a link destination starts (after `(` or `<`) */
  asUrl?: boolean;
  /** only part of `raw` is replaced: `length` characters from `offset` (0 inserts `text` there) */
  offset?: number;
  length?: number;
  /** the replacement runs on to the end of the next `until` (an element with what it encloses) */
  until?: string;
  /** made for safety: Markdown output is not safe if it cannot be made */
  required?: boolean;
  /**
   * where `raw` starts in the content of the inline token it was read from, when known: it is then
   * replaced there, not at the next copy of the same text (which may sit in a link's address, in raw
   * HTML or in another table cell)
   */
  at?: number;
  /** a backslash before a character of the text, not an insertion (see insertionEscapes) */
  escapes?: boolean;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

const BLANK_IN_CONTAINER = /^[ \t>]*$/;

/**
 * Finds replacements in order within a block's source text (or an inline token's content), skipping code
 * spans and backslash escapes. Inline source spanning lines is found across the quote markers and
 * indentation the block's lines start with. A replacement not found is skipped.
 */
function findEdits(
  text: string,
  replacements: readonly Replacement[],
  base: number,
  anchor: ContentAnchor | null,
): { edits: Edit[]; missed: boolean } {
  const search = new InlineSearch(text);
  const inContent = anchor === null || anchor.content === text ? search : new InlineSearch(anchor.content);
  const edits: Edit[] = [];
  let missed = false;
  let cursor = 0;
  for (const r of replacements) {
    const at =
      anchor !== null && r.at !== undefined ? placed(text, inContent, search, anchor, r.raw, r.at) : null;
    // A backslash goes where its character was read, or nowhere: the next copy may be markup.
    const found = at ?? (r.escapes === true ? null : search.find(r.raw, cursor, r.asUrl === true));
    if (found === null) {
      missed ||= r.required === true;
      continue;
    }
    let [start, end] = found;
    if (r.until !== undefined) {
      const close = search.find(r.until, end, false);
      if (close !== null) end = close[1];
    } else if (r.offset !== undefined) {
      start += r.offset;
      end = Math.min(end, start + (r.length ?? 0));
    }
    edits.push({ start: base + start, end: base + end, text: r.text });
    // Past this occurrence even when only an insertion was made in it, so the next raw is not found here.
    cursor = Math.max(end, found[0] + 1);
  }
  return { edits, missed };
}

/** Text with replacements made: an inline token's content as Markdown output will hold it. */
export function spliceText(text: string, replacements: readonly Replacement[]): string {
  let out = '';
  let pos = 0;
  for (const edit of findEdits(text, replacements, 0, {
    content: text,
    start: 0,
    verbatim: true,
    itself: true,
  }).edits) {
    out += text.slice(pos, edit.start) + edit.text;
    pos = edit.end;
  }
  return out + text.slice(pos);
}

/**
 * The source of a page as lines (split the way markdown-it splits them: CRLF, CR or LF) and the edits
 * to make to it. Edits are collected by line map and applied at once, leaving every other byte as it was.
 */
export class SourceLines {
  private readonly starts: number[] = [0];
  private readonly lineCount: number;
  private readonly edits: Edit[] = [];
  /** the lines (by their start) where locate last found a content, and where that content's first line ended */
  private located: { from: number; end: number } | undefined;
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

  /** The text of lines [from, to), without the last line break. */
  linesText([from, to]: readonly [number, number]): string {
    return this.source.slice(this.lineStart(from), this.lineEnd(to - 1));
  }

  /** A line's text, without its line break. */
  lineText(line: number): string {
    return this.source.slice(this.lineStart(line), this.lineEnd(line));
  }

  private isBlank(line: number): boolean {
    return BLANK_IN_CONTAINER.test(this.source.slice(this.lineStart(line), this.lineEnd(line)));
  }

  /**
   * Replaces the lines of a block plugin (or of another block starting with `openedBy`). What precedes
   * the opener on its first line (indentation, a list marker, `> `) is kept, and continuation lines are
   * indented to match, but for the last `ownIndent` characters: the block's own indentation, which its
   * continuation lines carry themselves. With `separate`, blank lines are added where a neighbour would otherwise run into
   * the replacement (a bold title line would join the paragraph above). False if the opener is not there.
   */
  replaceBlock(
    map: readonly [number, number],
    markdown: string,
    openedBy = '$plugin[',
    separate = true,
    ownIndent = 0,
  ): boolean {
    const [first, after] = map;
    const lineStart = this.lineStart(first);
    const opener = this.source.indexOf(openedBy, lineStart);
    if (opener < 0 || opener > this.lineEnd(first)) return false;
    const prefix = this.source.slice(lineStart, opener);
    const end = this.lineEnd(after - 1);
    if (markdown === '') {
      this.edits.push({ start: opener, end, text: '' });
      return true;
    }
    const indent = prefix.slice(0, prefix.length - ownIndent).replace(/[^\t>]/g, ' ');
    const blank = indent.trimEnd();
    const body = markdown
      .split('\n')
      .map((line, i) => (i === 0 ? line : line === '' ? blank : indent + line))
      .join(this.eol);
    const before =
      separate && first > 0 && !this.isBlank(first - 1) && BLANK_IN_CONTAINER.test(prefix)
        ? this.eol + prefix
        : '';
    const trailing = separate && after < this.lineCount && !this.isBlank(after) ? this.eol + blank : '';
    this.edits.push({ start: opener, end, text: before + body + trailing });
    return true;
  }

  /**
   * Finds each replacement's text in order within the block's lines, skipping code spans and escapes.
   * False when a required replacement was not found.
   */
  /**
   * Where an inline token's content starts within the lines of `map`, found after the content of the
   * inline token read before it from the same lines (the cells of a table row share a line; a cell's
   * `|` was `\\|` in the source); null when it is not there.
   */
  locate(map: readonly [number, number], content: string, cell: boolean): ContentAnchor | null {
    const from = this.lineStart(map[0]);
    if (this.located?.from !== from) this.located = { from, end: 0 };
    const region = this.source.slice(from, this.lineStart(map[1]));
    const lineEnd = content.search(/[\r\n]/);
    const firstLine = lineEnd < 0 ? content : content.slice(0, lineEnd);
    const text = cell ? firstLine.replaceAll('|', '\\|') : firstLine;
    const start = region.indexOf(text, this.located.end);
    if (start < 0) return null;
    this.located.end = start + text.length;
    const anchor = { content, start, verbatim: text === firstLine };
    return lineEnd < 0 ? anchor : { ...anchor, ...this.contentLines(map[0], content, start) };
  }

  /**
   * Where the lines of a content read from lines from `first` on start, in the content and in those
   * lines (relative to the first's start): each but the first ends its line, the last before any
   * trailing blanks (markdown-it trims the content's ends). Empty when one is not found so.
   */
  private contentLines(first: number, content: string, start: number): { lines?: Array<[number, number]> } {
    const base = this.lineStart(first);
    const lines: Array<[number, number]> = [[0, start]];
    const parts = content.split('\n');
    let at = (parts[0]?.length ?? 0) + 1;
    for (let k = 1; k < parts.length; k += 1) {
      const part = parts[k] ?? '';
      const line = this.source.slice(this.lineStart(first + k), this.lineEnd(first + k));
      const kept = k === parts.length - 1 ? line.replace(/[ \t]+$/, '') : line;
      if (!kept.endsWith(part)) return {};
      lines.push([at, this.lineStart(first + k) - base + kept.length - part.length]);
      at += part.length + 1;
    }
    return { lines };
  }

  replaceInline(
    map: readonly [number, number],
    replacements: readonly Replacement[],
    anchor: ContentAnchor | null,
  ): boolean {
    const from = this.lineStart(map[0]);
    const region = this.source.slice(from, this.lineStart(map[1]));
    const { edits, missed } = findEdits(region, replacements, from, anchor);
    this.edits.push(...edits);
    return !missed;
  }

  /** Replaces `length` characters from a column of a line (0 inserts `text` there); false if out of it. */
  replaceAt(line: number, column: number, length: number, text: string): boolean {
    const start = this.lineStart(line) + column;
    if (start + length > this.lineEnd(line)) return false;
    this.edits.push({ start, end: start + length, text });
    return true;
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
