import type { InlineItem } from './inline-rules.ts';

/*
 * The Markdoc tags the platform's Git format writes, one writer per Darkdown plugin and inline token:
 * the inverse of markdoc-to-darkdown.ts (0032-markdoc-output.md). Bodies arrive already converted;
 * these only write the tags around them.
 */

type Json = Record<string, unknown>;

/** What a plugin's writer needs besides its data: nested Darkdown as Markdoc, and links. */
export interface TagContext {
  /** Darkdown held by a plugin (a callout's text, a tab), as Markdoc */
  body(darkdown: string): string;
  /** a URL or page address as the Git layout names it (`../setup.md#a`), or as it is */
  link(href: string): string;
}

/** A string attribute: Markdoc reads JSON-like strings, so `"`, `\` and line breaks are escaped. */
export function attribute(name: string, value: string): string {
  const escaped = value.replace(/[\\"\n\r\t]/g, (c) => ESCAPES[c] ?? c);
  return ` ${name}="${escaped}"`;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);

/** A tag around a body on lines of its own; self-closing when there is none to write. */
function wrap(name: string, attributes: string, body: string | null): string {
  if (body === null) return `{% ${name}${attributes} /%}`;
  return body === ''
    ? `{% ${name}${attributes} %}\n{% /${name} %}`
    : `{% ${name}${attributes} %}\n${body}\n{% /${name} %}`;
}

/** A fence long enough that no line of the code closes it. */
function fence(language: string, code: string, annotation: string): string {
  let longest = 2;
  for (const match of code.matchAll(/^ {0,3}(`{3,})/gm)) longest = Math.max(longest, match[1]?.length ?? 0);
  const ticks = '`'.repeat(longest + 1);
  const info = `${language === 'none' ? '' : language}${annotation === '' ? '' : ` {%${annotation} %}`}`;
  return `${ticks}${info}\n${code}\n${ticks}`;
}

function pixelsAttribute(name: string, value: unknown): string {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? ` ${name}=${value}` : '';
}

/**
 * A block plugin's tag, or null when it has no Markdoc equivalent (an unknown type). The caller checks
 * that the tag reads back to the same plugin, and keeps the plugin's text where it does not.
 */
export function pluginTag(type: string, data: Json, ctx: TagContext): string | null {
  switch (type) {
    case 'callout':
      return wrap(
        'callout',
        attribute('type', str(data.type)) + attribute('title', str(data.title)),
        ctx.body(str(data.text)),
      );
    case 'image': {
      const attributes =
        attribute('url', ctx.link(str(data.url))) +
        attribute('mode', str(data.mode)) +
        pixelsAttribute('width', data.width) +
        pixelsAttribute('height', data.height);
      return wrap('image', attributes, typeof data.caption === 'string' ? ctx.body(data.caption) : null);
    }
    case 'custom-html':
      return wrap('html', '', str(data.contents));
    case 'video':
      return wrap(
        'video',
        attribute('provider', str(data.provider)) + attribute('videoId', str(data.videoId)),
        null,
      );
    case 'synced-block':
      return wrap('synced', attribute('id', str(data.syncedBlockId)), null);
    case 'code-block':
      return wrap('code', '', codeFences(objects(data.languageBlocks)));
    case 'tabs':
      return wrap(
        'tabs',
        '',
        objects(data.tabs)
          .map((tab) => wrap('tab', attribute('title', str(tab.title)), ctx.body(str(tab.content))))
          .join('\n'),
      );
    case 'cards':
      return wrap(
        'cards',
        attribute('view', str(data.view)),
        objects(data.cards)
          .map((card) => {
            const attributes =
              attribute('title', str(card.title)) +
              attribute('text', str(card.text)) +
              attribute('link', ctx.link(str(card.link)));
            return wrap('card', attributes, null);
          })
          .join('\n'),
      );
    case 'accordion':
      return wrap(
        'accordion',
        `${attribute('title', str(data.title))} open=${data.open === true}`,
        ctx.body(str(data.content)),
      );
    case 'table':
      return wrap('table', '', tableRows(data, ctx));
    default:
      return null;
  }
}

function codeFences(entries: Json[]): string {
  return entries
    .map((entry) => {
      const title = str(entry.title);
      return fence(str(entry.language), str(entry.code), title === '' ? '' : attribute('title', title));
    })
    .join('\n\n');
}

/** Row 0 is the header; the first row's cells carry the column widths, as the platform writes them. */
function tableRows(data: Json, ctx: TagContext): string {
  const widths = Array.isArray(data.widths) ? (data.widths as unknown[]) : [];
  const rows = Array.isArray(data.contents) ? (data.contents as unknown[]) : [];
  return rows
    .map((row, r) => {
      const cells = (Array.isArray(row) ? (row as unknown[]) : []).map((cell, c) => {
        const width = r === 0 ? widths[c] : undefined;
        const attributes =
          (r === 0 ? ' header=true' : '') +
          (typeof width === 'number' && Number.isInteger(width) && width > 0 ? ` colwidth=[${width}]` : '');
        return wrap('cell', attributes, ctx.body(str(cell)));
      });
      return wrap('row', '', cells.join('\n'));
    })
    .join('\n');
}

/** An inline token's tag (darkdown.md §3). */
export function inlineTag(item: InlineItem): string {
  switch (item.kind) {
    case 'badge':
      return `{% badge${attribute('text', item.text)}${attribute('type', item.type)} /%}`;
    case 'icon':
      return `{% icon${attribute('classes', item.classes)} /%}`;
    case 'key':
      return `{% key${attribute('key', item.key)} /%}`;
    case 'glossary':
      return `{% glossary${attribute('term', item.term)} /%}`;
  }
}
