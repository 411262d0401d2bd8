import { AUTO_LINK_SOURCE } from './inline-rules.ts';

const AUTO_LINK_GLOBAL = new RegExp(AUTO_LINK_SOURCE, 'g');
/** JSON escapes as plugins hold them, at any nesting depth (each level of JSON doubles the backslashes). */
const ESCAPED_SLASH = /\\+\//g;
const ESCAPED_UNICODE = /\\+u([0-9a-fA-F]{4})/g;

/**
 * The `${doc}/${page}` keys of the pages a source's [auto$] links name, in order of first appearance.
 * Read from the raw text with JSON escapes undone, so links inside plugin JSON (a callout's text, a
 * table cell) count. It may name a page a render would not (a link shown inside a code span): callers
 * use the list for cache keys, where one key too many costs nothing and one too few serves a stale title.
 */
export function autoLinkTargets(source: string): string[] {
  if (!source.includes('[auto$]')) return [];
  const unescaped = source
    .replace(ESCAPED_SLASH, '/')
    .replace(ESCAPED_UNICODE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const targets = new Set<string>();
  for (const match of unescaped.matchAll(AUTO_LINK_GLOBAL)) {
    targets.add(`${match[1] ?? ''}/${match[2] ?? ''}`);
  }
  return [...targets];
}
