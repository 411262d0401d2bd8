import { ContentError } from './content-error.ts';
import { readFrontMatter, writeFrontMatter, type FrontMatterValue } from './front-matter.ts';

/** A page in a Darkdown export (darkdown.md §5): front matter, then the draft and published bodies. */
export interface PageFile {
  meta: Record<string, FrontMatterValue>;
  draft: string | null;
  published: string | null;
}

/** Front matter is a few keys; past this many characters it is refused before it is read. */
export const MAX_FRONT_MATTER_CHARS = 64 * 1024;

const INDEX_ENTRY_TYPES: readonly string[] = ['category', 'link', 'separator'];
const MARKER = /^---(draft|published)?[ \t]*\r?$/;

interface Line {
  text: string;
  start: number;
  /** offset just past the line break */
  next: number;
}

function* lines(text: string): Generator<Line> {
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    yield { text: text.slice(start, end), start, next: nl < 0 ? text.length : nl + 1 };
    start = nl < 0 ? text.length : nl + 1;
  }
}

/**
 * A part is a newline, the body, and a newline before the next marker line or the end of the file
 * (darkdown.md §5), in the file's own line ending. Quire's exports of format version 1 put one more
 * blank line before `---published`; `legacy` removes it too, so those files read as they always did.
 */
function body(text: string, nl: string, beforeMarker: boolean, legacy: boolean): string {
  let out = text.startsWith(nl) ? text.slice(nl.length) : text;
  const trailing = legacy && beforeMarker && out.endsWith(nl + nl) ? nl + nl : nl;
  if (out.endsWith(trailing)) out = out.slice(0, out.length - trailing.length);
  return out;
}

export interface PageFileOptions {
  /** read the parts as Quire's exports of format version 1 wrote them */
  legacyParts?: boolean;
}

export function parsePageFile(text: string, options: PageFileOptions = {}): PageFile {
  const legacy = options.legacyParts === true;
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const all = lines(source);
  const first = all.next();
  if (first.done === true || !/^---[ \t]*\r?$/.test(first.value.text)) {
    throw new ContentError(
      'Invalid page file: it must start with a front matter block opened by a "---" line',
    );
  }
  const metaStart = first.value.next;
  const nl = first.value.text.endsWith('\r') ? '\r\n' : '\n';
  let meta: Record<string, FrontMatterValue> | undefined;
  let draft: string | null = null;
  let published: string | null = null;
  let draftStart: number | null = null;
  for (const line of all) {
    if (meta === undefined && line.start - metaStart > MAX_FRONT_MATTER_CHARS) {
      throw new ContentError(
        `Invalid page file: its front matter is longer than ${MAX_FRONT_MATTER_CHARS} characters`,
      );
    }
    const marker = MARKER.exec(line.text);
    if (marker === null) continue;
    const kind = marker[1];
    if (meta === undefined) {
      meta = readFrontMatter(source.slice(metaStart, line.start));
      if (kind === undefined) {
        if (source.slice(line.next).trim() !== '') {
          throw new ContentError('Invalid page file: a body must follow a "---draft" or "---published" line');
        }
        return { meta, draft: null, published: null };
      }
    } else if (draftStart !== null && kind === 'published') {
      draft = body(source.slice(draftStart, line.start), nl, true, legacy);
    } else {
      continue;
    }
    if (kind === 'published') {
      // Published is the last part, so it may hold any line, `---draft` included.
      published = body(source.slice(line.next), nl, false, legacy);
      return { meta, draft, published };
    }
    draftStart = line.next;
  }
  if (meta === undefined) throw new ContentError('Invalid page file: the front matter block is never closed');
  if (draftStart !== null) draft = body(source.slice(draftStart), nl, false, legacy);
  return { meta, draft, published };
}

const frontMatter = (meta: Record<string, unknown>): string => `---\n${writeFrontMatter(meta)}`;

export function writePageFile(file: PageFile): string {
  if (file.draft !== null && /^---published[ \t]*\r?$/m.test(file.draft)) {
    // The reader ends the draft at the first such line; writing it would silently cut the draft short.
    throw new ContentError('The draft contains a "---published" line, which a page file cannot represent');
  }
  let out = frontMatter(file.meta);
  if (file.draft === null && file.published === null) return `${out}---\n`;
  if (file.draft !== null) out += `---draft\n\n${file.draft}\n`;
  if (file.published !== null) out += `---published\n\n${file.published}\n`;
  return out;
}

/** A section index entry other than a page: front matter only. */
export function writeIndexEntryFile(meta: Record<string, unknown>): string {
  if (typeof meta.type !== 'string' || !INDEX_ENTRY_TYPES.includes(meta.type)) {
    throw new ContentError(
      `An index entry file needs type ${INDEX_ENTRY_TYPES.join(', ')}; got ${String(meta.type)}`,
    );
  }
  return `${frontMatter(meta)}---\n`;
}
