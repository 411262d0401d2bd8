/** The block plugins of darkdown.md §2, read leniently from their JSON into a closed set of shapes. */
export type CalloutTone = 'info' | 'success' | 'warning' | 'error';
export type VideoProvider = 'youtube' | 'vimeo' | 'loom' | 'raw';

export interface CodeEntry {
  language: string;
  code: string;
  title: string;
}

export type Plugin =
  | { kind: 'callout'; tone: CalloutTone; title: string; text: string }
  | { kind: 'code-block'; entries: CodeEntry[] }
  | { kind: 'image'; url: string; mode: string; caption: string | null }
  | { kind: 'custom-html'; contents: string }
  | { kind: 'video'; provider: VideoProvider; videoId: string }
  | { kind: 'synced-block'; id: string }
  | { kind: 'table'; rows: string[][]; widths: number[] }
  | { kind: 'tabs'; tabs: Array<{ title: string; content: string }> }
  | { kind: 'cards'; view: 'grid' | 'list'; cards: Array<{ title: string; text: string; link: string }> }
  | { kind: 'accordion'; title: string; open: boolean; content: string }
  | { kind: 'unknown'; type: string };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  const s = str(value).toLowerCase();
  return (allowed as readonly string[]).includes(s) ? (s as T) : fallback;
}

const TONES = ['info', 'success', 'warning', 'error'] as const;
const PROVIDERS = ['youtube', 'vimeo', 'loom', 'raw'] as const;

/** Reads a parsed plugin object; null when it is not a plugin at all (no string `type`). */
export function readPlugin(value: unknown): Plugin | null {
  if (!isObject(value) || typeof value.type !== 'string') return null;
  const data = isObject(value.data) ? value.data : {};
  switch (value.type) {
    case 'callout':
      return {
        kind: 'callout',
        tone: oneOf(data.type, TONES, 'info'),
        title: str(data.title),
        text: str(data.text),
      };
    case 'code-block':
      return {
        kind: 'code-block',
        entries: list(data.languageBlocks)
          .filter(isObject)
          .map((b) => ({ language: str(b.language), code: str(b.code), title: str(b.title) })),
      };
    case 'image':
      return {
        kind: 'image',
        url: str(data.url),
        mode: str(data.mode),
        caption: typeof data.caption === 'string' ? data.caption : null,
      };
    case 'custom-html':
      return { kind: 'custom-html', contents: str(data.contents) };
    case 'video': {
      const provider = str(data.provider).toLowerCase();
      if (!(PROVIDERS as readonly string[]).includes(provider)) return { kind: 'unknown', type: 'video' };
      return { kind: 'video', provider: provider as VideoProvider, videoId: str(data.videoId) };
    }
    case 'synced-block':
      return { kind: 'synced-block', id: str(data.syncedBlockId) };
    case 'table':
      return {
        kind: 'table',
        rows: list(data.contents).map((row) => list(row).map(str)),
        widths: list(data.widths).map((w) => (typeof w === 'number' && w > 0 ? Math.round(w) : 0)),
      };
    case 'tabs':
      return {
        kind: 'tabs',
        tabs: list(data.tabs)
          .filter(isObject)
          .map((t) => ({ title: str(t.title), content: str(t.content) })),
      };
    case 'cards':
      return {
        kind: 'cards',
        view: oneOf(data.view, ['grid', 'list'], 'grid'),
        cards: list(data.cards)
          .filter(isObject)
          .map((c) => ({ title: str(c.title), text: str(c.text), link: str(c.link) })),
      };
    case 'accordion':
      return {
        kind: 'accordion',
        title: str(data.title),
        open: data.open === true,
        content: str(data.content),
      };
    default:
      return { kind: 'unknown', type: value.type };
  }
}

/** A numeric image mode ("300", 600) is a display width in pixels. */
export function imageWidth(mode: string): number | null {
  return /^\d{1,5}$/.test(mode.trim()) ? Number(mode.trim()) : null;
}

/** `language: "none"` (or none at all) means no highlighting. */
export function codeLanguage(language: string): string {
  const clean = language.trim().replace(/[^\w+#.-]/g, '');
  return clean.toLowerCase() === 'none' ? '' : clean;
}

export function codeTitle(entry: CodeEntry, index: number): string {
  return entry.title.trim() || codeLanguage(entry.language) || `Code ${index + 1}`;
}

/** The number of columns: the widest row decides, so no cell is ever dropped. */
export function tableColumns(rows: readonly string[][]): number {
  return rows.reduce((max, row) => Math.max(max, row.length), 0);
}
