import type { Static } from '@sinclair/typebox';
import { escapeHtml } from '../../content/escape.ts';
import type { MatchedEntry } from './search.repository.ts';
import type { SearchHitSchema } from './search.schemas.ts';

export type SearchHit = Static<typeof SearchHitSchema>;

const START = '\u0001';
const STOP = '\u0002';
/** A hit's `content`: the entry's text up to about this many characters. */
const CONTENT_CHARS = 500;
/** `highlight.content`: about this many characters around the first match. */
const HIGHLIGHT_CHARS = 200;
const BEFORE_MATCH = 60;

/** Cut at a space near `end` (when there is one), marked with an ellipsis. */
function cutAfter(text: string, end: number): string {
  if (text.length <= end) return text;
  const space = text.lastIndexOf(' ', end);
  return `${text.slice(0, space > end * 0.6 ? space : end).trimEnd()}…`;
}

/** Marked text (matches between \u0001 and \u0002) as HTML: matches in <mark>, all else escaped. */
function toHtml(marked: string): string {
  let html = '';
  let open = false;
  let from = 0;
  for (let i = 0; i <= marked.length; i++) {
    const char = marked[i];
    if (i < marked.length && char !== START && char !== STOP) continue;
    html += escapeHtml(marked.slice(from, i));
    from = i + 1;
    if (char === START && !open) html += '<mark>';
    if (char === STOP && open) html += '</mark>';
    if (char !== undefined) open = char === START;
  }
  return open ? `${html}</mark>` : html;
}

/** About HIGHLIGHT_CHARS characters of marked text around its first match (its start without one). */
function aroundFirstMatch(marked: string): string {
  const first = marked.indexOf(START);
  let from = first <= BEFORE_MATCH ? 0 : first - BEFORE_MATCH;
  if (from > 0) {
    const space = marked.indexOf(' ', from);
    if (space !== -1 && space < first) from = space + 1;
  }
  let to = Math.min(marked.length, from + HIGHLIGHT_CHARS);
  if (to < marked.length) {
    const space = marked.lastIndexOf(' ', to);
    if (space > Math.max(first, from)) to = space;
  }
  // A cut inside a match keeps the match whole.
  const lastStart = marked.lastIndexOf(START, to - 1);
  if (lastStart >= from && lastStart > marked.lastIndexOf(STOP, to - 1)) {
    const stop = marked.indexOf(STOP, to);
    if (stop !== -1) to = stop + 1;
  }
  const slice = marked.slice(from, to).trim();
  return `${from > 0 ? '…' : ''}${slice}${to < marked.length ? '…' : ''}`;
}

/**
 * `/<version>/<section>/<page>#<fragment>`. A changelog post has no version: its path is
 * `/changelog/<changelog>/<post>#<fragment>`, the way readers' sites address a changelog's posts
 * (a version may be called `changelog` too; the hit's sectionType tells the two apart).
 */
export function entryPath(
  entry: Pick<MatchedEntry, 'section_type' | 'version_slug' | 'section' | 'page' | 'fragment'>,
): string {
  const first = entry.section_type === 'changelog' ? 'changelog' : (entry.version_slug ?? '');
  const path = `/${first}/${entry.section}/${entry.page}`;
  return entry.fragment === '' ? path : `${path}#${entry.fragment}`;
}

export function presentHit(entry: MatchedEntry): SearchHit {
  return {
    content: cutAfter(entry.content, CONTENT_CHARS),
    title: entry.title,
    sectionType: entry.section_type,
    version: entry.version_slug,
    section: entry.section,
    page: entry.page,
    pageId: entry.page_id,
    fragment: entry.fragment,
    path: entryPath(entry),
    highlight: {
      title: toHtml(entry.title_marked),
      content: toHtml(aroundFirstMatch(entry.content_marked)),
    },
  };
}
