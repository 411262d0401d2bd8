import { ContentError } from './content-error.ts';
import { readFrontMatter, type FrontMatterValue } from './front-matter.ts';
import { MAX_FRONT_MATTER_CHARS } from './page-file.ts';

/** A page of the platform's Git format: front matter between `---` lines, then the Markdoc body. */
export interface MarkdocPage {
  meta: Record<string, FrontMatterValue>;
  body: string;
}

/**
 * Reads a page file of the Git format. Its front matter is the same `key: value` lines as a
 * Darkdown export's (quoted values are YAML scalars); a file without one is all body. The body loses
 * the blank lines around it, as a stored page does.
 */
export function parseMarkdocPage(text: string): MarkdocPage {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = source.split('\n');
  const bare = (line: string | undefined): string | undefined =>
    line?.endsWith('\r') ? line.slice(0, -1) : line;
  if (bare(lines[0]) !== '---') return { meta: {}, body: trimBody(source) };
  const close = lines.findIndex((line, i) => i > 0 && bare(line) === '---');
  if (close < 0) throw new ContentError('its front matter has no closing --- line');
  const front = lines.slice(1, close).join('\n');
  if (front.length > MAX_FRONT_MATTER_CHARS) {
    throw new ContentError(`its front matter is longer than ${MAX_FRONT_MATTER_CHARS} characters`);
  }
  return { meta: readFrontMatter(front), body: trimBody(lines.slice(close + 1).join('\n')) };
}

/** A body without the blank lines before it and the white space after it. */
function trimBody(body: string): string {
  let start = 0;
  let end = body.length;
  // Only whole blank lines go at the start: indentation of the first line is Markdown.
  for (let i = 0; i < end; i++) {
    if (body[i] === '\n') start = i + 1;
    else if (body[i] !== '\r' && body[i] !== ' ' && body[i] !== '\t') break;
  }
  while (end > start && /\s/.test(body[end - 1] ?? '')) end--;
  return body.slice(start, end);
}
