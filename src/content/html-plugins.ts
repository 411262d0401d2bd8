import { highlightCode } from './highlight.ts';
import { safeLinkTarget } from './escape.ts';
import {
  codeLanguage,
  codeTitle,
  imageWidth,
  tableColumns,
  type CodeEntry,
  type Plugin,
} from './plugin-data.ts';
import { videoEmbedUrl } from './video.ts';

/** How a plugin renders the Darkdown and plain strings it holds; supplied by the HTML renderer. */
export interface HtmlNesting {
  /** Darkdown rendered as blocks */
  block(source: string): string;
  /** Darkdown rendered without the `<p>` around a lone paragraph (table cells, captions) */
  compact(source: string): string;
  /** Darkdown as plain text, unescaped (for `alt`) */
  text(source: string): string;
  /** a caption both ways from one parse: as `compact` renders it and as plain text (`text`) */
  caption(source: string): { html: string; text: string };
  /** a plain string (a title): variables resolved, escaped */
  plain(value: string): string;
  /** an image URL with `asset:ID` resolved */
  asset(url: string): string;
  /** text escaped as this output writes it */
  escape(text: string): string;
  /** ` name="value"` as this output writes the attribute of that tag, or '' where it is dropped */
  attr(tag: string, name: string, value: string): string;
  /** a boolean attribute, ` name`, or '' where it is dropped */
  flag(tag: string, name: string): string;
  /** how an element without content (`img`, `col`) ends: `>` or ` />` */
  end(tag: string): string;
  /** the HTML of a `custom-html` plugin (trimmed, not empty) */
  rawHtml(html: string): string;
}

function codeHtml(entry: CodeEntry, n: HtmlNesting): string {
  const language = codeLanguage(entry.language);
  const cls = language === '' ? '' : n.attr('code', 'class', `language-${language}`);
  const code = entry.code.endsWith('\n') ? entry.code : `${entry.code}\n`;
  return `<pre><code${cls}>${highlightCode(code, language) ?? n.escape(code)}</code></pre>\n`;
}

function codeBlockHtml(entries: readonly CodeEntry[], n: HtmlNesting): string {
  const [only] = entries;
  if (only === undefined) return '';
  if (entries.length === 1) {
    if (only.title.trim() === '') return codeHtml(only, n);
    return `<div class="code-block"><div class="code-title">${n.plain(only.title)}</div>${codeHtml(only, n)}</div>\n`;
  }
  const tabs = entries.map(
    (entry, i) =>
      `<div class="code-tab"><div class="code-tab-title">${n.plain(codeTitle(entry, i))}</div>${codeHtml(entry, n)}</div>`,
  );
  return `<div class="code-tabs">${tabs.join('')}</div>\n`;
}

function imageHtml(plugin: Extract<Plugin, { kind: 'image' }>, n: HtmlNesting): string {
  const source = plugin.caption?.trim() ?? '';
  const caption = n.caption(source);
  const width = imageWidth(plugin.mode);
  const mode = width === null ? plugin.mode.replace(/[^\w-]/g, '') || 'responsive' : 'fixed';
  const img =
    `<img${n.attr('img', 'src', n.asset(plugin.url))}${n.attr('img', 'alt', caption.text)}` +
    (width === null ? '' : n.attr('img', 'width', String(width))) +
    n.end('img');
  const figcaption = source === '' ? '' : `<figcaption>${caption.html}</figcaption>`;
  return `<figure class="image image-${mode}">${img}${figcaption}</figure>\n`;
}

function videoHtml(plugin: Extract<Plugin, { kind: 'video' }>, n: HtmlNesting): string {
  const url = videoEmbedUrl(plugin.provider, plugin.videoId);
  if (url === null) return '';
  const player =
    plugin.provider === 'raw'
      ? `<video${n.attr('video', 'src', url)}${n.flag('video', 'controls')}${n.attr('video', 'preload', 'metadata')}></video>`
      : `<iframe${n.attr('iframe', 'src', url)}${n.attr('iframe', 'title', 'Video')}${n.attr('iframe', 'loading', 'lazy')}${n.flag('iframe', 'allowfullscreen')}></iframe>`;
  return `<div class="video video-${plugin.provider}">${player}</div>\n`;
}

function tableRow(cells: readonly string[], columns: number, tag: 'th' | 'td', n: HtmlNesting): string {
  let html = '<tr>';
  for (let c = 0; c < columns; c += 1) html += `<${tag}>${n.compact(cells[c] ?? '')}</${tag}>`;
  return `${html}</tr>`;
}

function tableHtml(plugin: Extract<Plugin, { kind: 'table' }>, n: HtmlNesting): string {
  const columns = tableColumns(plugin.rows);
  if (columns === 0) return '';
  const widths = plugin.widths.slice(0, columns);
  const colgroup = widths.some((w) => w > 0)
    ? `<colgroup>${widths.map((w) => `<col${w > 0 ? n.attr('col', 'width', String(w)) : ''}${n.end('col')}`).join('')}</colgroup>`
    : '';
  const [head, ...body] = plugin.rows;
  const thead = `<thead>${tableRow(head ?? [], columns, 'th', n)}</thead>`;
  let tbody = '';
  for (const row of body) tbody += tableRow(row, columns, 'td', n);
  return `<table>${colgroup}${thead}${tbody === '' ? '' : `<tbody>${tbody}</tbody>`}</table>\n`;
}

function cardsHtml(plugin: Extract<Plugin, { kind: 'cards' }>, n: HtmlNesting): string {
  if (plugin.cards.length === 0) return '';
  const items = plugin.cards.map((card) => {
    const inner = `<span class="card-title">${n.plain(card.title)}</span><span class="card-text">${n.plain(card.text)}</span>`;
    const link = safeLinkTarget(card.link);
    const body = link === '' ? inner : `<a class="card-link"${n.attr('a', 'href', link)}>${inner}</a>`;
    return `<li class="card">${body}</li>`;
  });
  return `<ul class="cards cards-${plugin.view}">${items.join('')}</ul>\n`;
}

/** HTML of one block plugin (darkdown.md §4); unknown types render nothing. */
export function pluginToHtml(plugin: Plugin, n: HtmlNesting): string {
  switch (plugin.kind) {
    case 'callout': {
      const title =
        plugin.title.trim() === '' ? '' : `<div class="callout-title">${n.plain(plugin.title)}</div>`;
      const body = `<div class="callout-body">${n.block(plugin.text)}</div>`;
      return `<div class="callout callout-${plugin.tone}">${title}${body}</div>\n`;
    }
    case 'code-block':
      return codeBlockHtml(plugin.entries, n);
    case 'image':
      return imageHtml(plugin, n);
    case 'custom-html':
      return plugin.contents.trim() === '' ? '' : `${n.rawHtml(plugin.contents.trim())}\n`;
    case 'video':
      return videoHtml(plugin, n);
    case 'synced-block':
      return `<div class="synced-block"${n.attr('div', 'data-synced-block-id', plugin.id)}></div>\n`;
    case 'table':
      return tableHtml(plugin, n);
    case 'tabs': {
      if (plugin.tabs.length === 0) return '';
      const tabs = plugin.tabs.map(
        (tab) =>
          `<div class="tab"><div class="tab-title">${n.plain(tab.title)}</div>` +
          `<div class="tab-panel">${n.block(tab.content)}</div></div>`,
      );
      return `<div class="tabs">${tabs.join('')}</div>\n`;
    }
    case 'cards':
      return cardsHtml(plugin, n);
    case 'accordion':
      return (
        `<details class="accordion"${plugin.open ? n.flag('details', 'open') : ''}><summary>${n.plain(plugin.title)}</summary>` +
        `<div class="accordion-body">${n.block(plugin.content)}</div></details>\n`
      );
    case 'unknown':
      return '';
  }
}
