import { codeFence, escapeHtml, escapeMarkdownText, markdownDestination, safeLinkTarget } from './escape.ts';
import { codeLanguage, codeTitle, tableColumns, type CodeEntry, type Plugin } from './plugin-data.ts';
import { videoPageUrl } from './video.ts';
import { sanitizeHtmlForMarkdown } from './sanitiser.ts';

/** How a plugin converts the Darkdown and plain strings it holds; supplied by the markdown renderer. */
export interface MarkdownNesting {
  /** Darkdown converted to portable Markdown */
  block(source: string): string;
  /** Darkdown as plain text */
  text(source: string): string;
  /** a plain string (a title): variables resolved, Markdown-escaped */
  plain(value: string): string;
  /** an image URL with `asset:ID` resolved */
  asset(url: string): string;
  /** Markdown made safe as its readers read it */
  safeBlock(markdown: string): string;
}

/** Images may also be data: URLs (HTML output allows them for img only). */
function safeImageUrl(url: string): string {
  const trimmed = url.trim();
  return /^data:image\//i.test(trimmed) ? trimmed : safeLinkTarget(trimmed);
}

const ALERTS = { info: 'NOTE', success: 'TIP', warning: 'WARNING', error: 'CAUTION' } as const;

function quote(markdown: string): string {
  return markdown
    .split('\n')
    .map((line) => (line.trim() === '' ? '>' : `> ${line}`))
    .join('\n');
}

function fenced(entry: CodeEntry): string {
  const fence = codeFence(entry.code);
  const code = entry.code.replace(/\n$/, '');
  return `${fence}${codeLanguage(entry.language)}\n${code}\n${fence}`;
}

function bold(text: string): string {
  return text === '' ? '' : `**${text}**`;
}

function sections(parts: ReadonlyArray<string>): string {
  return parts.filter((p) => p.trim() !== '').join('\n\n');
}

/**
 * A pipe table cell holds one line: line breaks become `<br>` and `|` is escaped (GFM splits cells
 * before it reads code spans, so this holds inside code too).
 */
function tableCell(markdown: string): string {
  return markdown
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('<br>')
    .replace(/(?<!\\)\|/g, '\\|');
}

function tableMarkdown(plugin: Extract<Plugin, { kind: 'table' }>, n: MarkdownNesting): string {
  const columns = tableColumns(plugin.rows);
  if (columns === 0) return '';
  const row = (cells: readonly string[]): string => {
    const out: string[] = [];
    for (let c = 0; c < columns; c += 1) out.push(tableCell(n.block(cells[c] ?? '')));
    return `| ${out.join(' | ')} |`;
  };
  const [head, ...body] = plugin.rows;
  const delimiter = `|${' --- |'.repeat(columns)}`;
  const table = [row(head ?? []), delimiter, ...body.map(row)].join('\n');
  // On one line, what was an HTML or code block in a cell is inline Markdown; and to a reader without
  // tables, markup may run across cells. Either way `[` and `<` (but the `<br>` cells are joined with)
  // may start markup again.
  return /\[|<(?!br>)/.test(table) ? n.safeBlock(table) : table;
}

/** Portable Markdown of one block plugin (darkdown.md §4); unknown types give nothing. */
export function pluginToMarkdown(plugin: Plugin, n: MarkdownNesting): string {
  switch (plugin.kind) {
    case 'callout': {
      const title = bold(n.plain(plugin.title).trim());
      const body = sections([title, n.block(plugin.text).trim()]);
      return quote(`[!${ALERTS[plugin.tone]}]${body === '' ? '' : `\n${body}`}`);
    }
    case 'code-block':
      if (plugin.entries.length === 1 && plugin.entries[0]?.title.trim() === '')
        return fenced(plugin.entries[0]);
      return sections(plugin.entries.map((e, i) => `${bold(n.plain(codeTitle(e, i)))}\n\n${fenced(e)}`));
    case 'image': {
      const alt = n
        .text(plugin.caption ?? '')
        .replace(/\s+/g, ' ')
        .trim();
      return `![${escapeMarkdownText(alt)}](${markdownDestination(safeImageUrl(n.asset(plugin.url)))})`;
    }
    case 'custom-html':
      // Kept as an HTML block, sanitised like every HTML Quire returns (a Markdown reader may render
      // it as it stands). One block: a blank line would end it and let the rest be read as Markdown.
      // Text before the first tag is read as Markdown all the same, so links in it are made safe too.
      return n.safeBlock(
        sanitizeHtmlForMarkdown(plugin.contents)
          .split('\n')
          .filter((line) => line.trim() !== '')
          .join('\n'),
      );
    case 'video': {
      const url = videoPageUrl(plugin.provider, plugin.videoId);
      return url === null ? '' : `[Video](${markdownDestination(url)})`;
    }
    case 'synced-block':
      return `<!-- synced-block ${escapeHtml(plugin.id).replace(/-{2,}/g, '-')} -->`;
    case 'table':
      return tableMarkdown(plugin, n);
    case 'tabs':
      return sections(
        plugin.tabs.map((t) => sections([bold(n.plain(t.title).trim()), n.block(t.content).trim()])),
      );
    case 'cards':
      return plugin.cards
        .map((card) => {
          const title = n.plain(card.title).trim();
          const link = safeLinkTarget(card.link);
          const head = link === '' ? bold(title) : `[${title}](${markdownDestination(link)})`;
          const text = n.plain(card.text).trim();
          return `- ${head}${text === '' ? '' : ` — ${text}`}`;
        })
        .join('\n');
    case 'accordion':
      return sections([bold(n.plain(plugin.title).trim()), n.block(plugin.content).trim()]);
    case 'unknown':
      return '';
  }
}
