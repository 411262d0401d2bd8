import { escapeHtml, safeLinkTarget } from './escape.ts';
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
  /** a plain string (a title): variables resolved, escaped */
  plain(value: string): string;
  /** an image URL with `asset:ID` resolved */
  asset(url: string): string;
}

function codeHtml(entry: CodeEntry): string {
  const language = codeLanguage(entry.language);
  const cls = language === '' ? '' : ` class="language-${escapeHtml(language)}"`;
  const code = entry.code.endsWith('\n') ? entry.code : `${entry.code}\n`;
  return `<pre><code${cls}>${escapeHtml(code)}</code></pre>\n`;
}

function codeBlockHtml(entries: readonly CodeEntry[], n: HtmlNesting): string {
  const [only] = entries;
  if (only === undefined) return '';
  if (entries.length === 1) {
    if (only.title.trim() === '') return codeHtml(only);
    return `<div class="code-block"><div class="code-title">${n.plain(only.title)}</div>${codeHtml(only)}</div>\n`;
  }
  const tabs = entries.map(
    (entry, i) =>
      `<div class="code-tab"><div class="code-tab-title">${n.plain(codeTitle(entry, i))}</div>${codeHtml(entry)}</div>`,
  );
  return `<div class="code-tabs">${tabs.join('')}</div>\n`;
}

function imageHtml(plugin: Extract<Plugin, { kind: 'image' }>, n: HtmlNesting): string {
  const caption = plugin.caption?.trim() ?? '';
  const width = imageWidth(plugin.mode);
  const mode = width === null ? plugin.mode.replace(/[^\w-]/g, '') || 'responsive' : 'fixed';
  const img =
    `<img src="${escapeHtml(n.asset(plugin.url))}" alt="${escapeHtml(n.text(caption))}"` +
    (width === null ? '' : ` width="${width}"`) +
    '>';
  const figcaption = caption === '' ? '' : `<figcaption>${n.compact(caption)}</figcaption>`;
  return `<figure class="image image-${mode}">${img}${figcaption}</figure>\n`;
}

function videoHtml(plugin: Extract<Plugin, { kind: 'video' }>): string {
  const url = videoEmbedUrl(plugin.provider, plugin.videoId);
  if (url === null) return '';
  const src = escapeHtml(url);
  const player =
    plugin.provider === 'raw'
      ? `<video src="${src}" controls preload="metadata"></video>`
      : `<iframe src="${src}" title="Video" loading="lazy" allowfullscreen></iframe>`;
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
    ? `<colgroup>${widths.map((w) => (w > 0 ? `<col width="${w}">` : '<col>')).join('')}</colgroup>`
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
    const body = link === '' ? inner : `<a class="card-link" href="${escapeHtml(link)}">${inner}</a>`;
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
      return plugin.contents.trim() === '' ? '' : `${plugin.contents.trim()}\n`;
    case 'video':
      return videoHtml(plugin);
    case 'synced-block':
      return `<div class="synced-block" data-synced-block-id="${escapeHtml(plugin.id)}"></div>\n`;
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
        `<details class="accordion"${plugin.open ? ' open' : ''}><summary>${n.plain(plugin.title)}</summary>` +
        `<div class="accordion-body">${n.block(plugin.content)}</div></details>\n`
      );
    case 'unknown':
      return '';
  }
}
