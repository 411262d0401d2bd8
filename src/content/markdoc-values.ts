import type { Node } from '@markdoc/markdoc';

/*
 * Small readers of Markdoc attribute values and writers of Darkdown's plugin and token forms, shared by
 * the two conversions (markdoc-to-darkdown.ts, darkdown-to-markdoc.ts).
 */

export type Attributes = Readonly<Record<string, unknown>>;

export interface MarkdocConversion {
  body: string;
  /** what had no Darkdown equivalent: a sentence saying what became of it, and how many times */
  unconverted: Map<string, number>;
}

export interface MarkdocOptions {
  /** a link's target as Darkdown names it (`/section/page#anchor`), or undefined to keep it */
  resolveLink?: (href: string) => string | undefined;
  /** an image's source as the page should hold it (a `data:` URL), or undefined to keep it */
  resolveImage?: (src: string) => string | undefined;
  /**
   * A synced block's contents, converted, to stand where a page uses it; undefined for a block that
   * does not exist (it is left out, and counted). Without this option the tag stays a placeholder.
   */
  syncedBlock?: (id: string) => MarkdocConversion | undefined;
}

export const BADGE_TYPES: readonly string[] = ['primary', 'success', 'warning', 'info', 'error', 'custom'];
export const CALLOUT_TYPES: readonly string[] = ['info', 'success', 'warning', 'error'];
export const VIDEO_PROVIDERS: readonly string[] = ['youtube', 'vimeo', 'loom', 'raw'];

/** An attribute as text: strings as they are, numbers and booleans written out, anything else empty. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** A size in pixels, when the attribute holds one (`width=464`, `width="88"`; not `"undefined"`). */
export function pixels(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export function oneOf(value: unknown, allowed: readonly string[], fallback: string): string {
  const s = text(value).toLowerCase();
  return allowed.includes(s) ? s : fallback;
}

/** A block plugin on one line (darkdown.md §2): the JSON is read, not searched, so any text is safe. */
export function pluginText(type: string, data: Record<string, unknown>): string {
  return `$plugin[${JSON.stringify({ type, data })}]$`;
}

/**
 * An inline token (darkdown.md §3), or null when its text cannot stand in one: a token ends at the
 * first `]` and never spans lines.
 */
export function inlineToken(name: string, ...args: string[]): string | null {
  if (args.some((a) => a.includes(']') || a.includes('\n') || a.includes('\r'))) return null;
  return `$inline[${[name, ...args].join(',')}]`;
}

/** Leading and trailing blank lines gone: a tag's body as one plugin string. */
export function trimLines(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value[start] === '\n' || value[start] === '\r')) start++;
  while (end > start && (value[end - 1] === '\n' || value[end - 1] === '\r')) end--;
  return value.slice(start, end);
}

export function tagsNamed(node: Node, name: string): Node[] {
  return node.children.filter((c) => c.type === 'tag' && c.tag === name);
}

export function cellWidth(cell: Node): number {
  const width: unknown = cell.attributes.colwidth;
  return Array.isArray(width) ? (pixels(width[0]) ?? 0) : 0;
}

export const keptMessage = (name: string): string =>
  `The Markdoc tag {% ${name} %} has no Darkdown equivalent: it was kept as text`;
