import Markdoc, { type Node } from '@markdoc/markdoc';
import {
  BADGE_TYPES,
  CALLOUT_TYPES,
  VIDEO_PROVIDERS,
  cellWidth,
  inlineToken,
  keptMessage,
  oneOf,
  pixels,
  pluginText,
  tagsNamed,
  text,
  trimLines,
  type Attributes,
  type MarkdocConversion,
  type MarkdocOptions,
} from './markdoc-values.ts';

export type { MarkdocConversion, MarkdocOptions };

/*
 * The platform's Git format writes pages in Markdoc; Quire stores Darkdown. Markdoc's own parser reads
 * the page, and the conversion splices its source by the lines the parser gives each node, so the
 * Markdown between tags reaches Darkdown byte for byte. The mapping is 0025-platform-git-format.md.
 */

export function markdocToDarkdown(source: string, options: MarkdocOptions = {}): MarkdocConversion {
  const unconverted = new Map<string, number>();
  const lines = source.split('\n');
  const body = new Converter(lines, options, unconverted).blocks(
    Markdoc.parse(source).children,
    0,
    lines.length,
  );
  return { body, unconverted };
}

class Converter {
  constructor(
    private readonly lines: readonly string[],
    private readonly options: MarkdocOptions,
    private readonly unconverted: Map<string, number>,
  ) {}

  /** The lines [from, to), each node in them converted and the lines between kept as they are. */
  blocks(nodes: readonly Node[], from: number, to: number): string {
    const out: string[] = [];
    let cursor = from;
    for (const node of nodes) {
      const start = node.lines[0];
      const end = node.lines.at(-1);
      if (start === undefined || end === undefined || start < cursor) continue;
      out.push(...this.lines.slice(cursor, start), this.block(node, start, end));
      cursor = end;
    }
    out.push(...this.lines.slice(cursor, to));
    return out.join('\n');
  }

  private block(node: Node, start: number, end: number): string {
    if (node.type === 'tag') return this.tag(node);
    if (node.type === 'fence' && node.annotations.length > 0) {
      return pluginText('code-block', { languageBlocks: [this.codeEntry(node)] });
    }
    return this.inline(this.lines.slice(start, end).join('\n'), node);
  }

  /** The body of a tag that has one, converted: the lines between its opening and closing lines. */
  private inner(node: Node): string {
    const [, open, close] = node.lines;
    if (open === undefined || close === undefined) return '';
    return trimLines(this.blocks(node.children, open, close));
  }

  private rawInner(node: Node): string {
    const [, open, close] = node.lines;
    if (open === undefined || close === undefined) return '';
    return trimLines(this.lines.slice(open, close).join('\n'));
  }

  private tag(node: Node): string {
    const a: Attributes = node.attributes;
    switch (node.tag ?? '') {
      case 'callout':
        return pluginText('callout', {
          type: oneOf(a.type, CALLOUT_TYPES, 'info'),
          title: text(a.title),
          text: this.inner(node),
        });
      case 'image': {
        const caption = this.inner(node);
        return pluginText('image', {
          url: this.image(text(a.url)),
          mode: text(a.mode) || 'responsive',
          ...(pixels(a.width) !== undefined ? { width: pixels(a.width) } : {}),
          ...(pixels(a.height) !== undefined ? { height: pixels(a.height) } : {}),
          caption: caption === '' ? null : caption,
        });
      }
      case 'html':
        return pluginText('custom-html', { contents: this.rawInner(node) });
      case 'video':
        return pluginText('video', {
          provider: oneOf(a.provider, VIDEO_PROVIDERS, 'youtube'),
          videoId: text(a.videoId),
        });
      case 'synced':
        return this.synced(text(a.id));
      case 'code':
        return pluginText('code-block', {
          languageBlocks: node.children.filter((c) => c.type === 'fence').map((c) => this.codeEntry(c)),
        });
      case 'tabs':
        return pluginText('tabs', {
          tabs: tagsNamed(node, 'tab').map((tab) => ({
            title: text(tab.attributes.title),
            content: this.inner(tab),
          })),
        });
      case 'cards':
        return pluginText('cards', {
          view: text(a.view) === 'list' ? 'list' : 'grid',
          cards: tagsNamed(node, 'card').map((card) => ({
            title: text(card.attributes.title),
            text: text(card.attributes.text) || this.inner(card),
            link: this.link(text(card.attributes.link)),
          })),
        });
      case 'accordion':
        return pluginText('accordion', {
          title: text(a.title),
          open: a.open === true,
          content: this.inner(node),
        });
      case 'table':
        return this.table(node);
      default:
        return this.inlineTag(node) ?? this.keptAsText(node);
    }
  }

  /** badge, icon, key, glossary and inline-image: Darkdown's inline tokens, or a Markdown image. */
  private inlineTag(node: Node): string | null {
    const a: Attributes = node.attributes;
    switch (node.tag ?? '') {
      case 'badge':
        return inlineToken('badge', text(a.text), oneOf(a.type, BADGE_TYPES, 'info')) ?? text(a.text);
      case 'icon':
        return inlineToken('icon', text(a.classes)) ?? '';
      case 'key':
        return inlineToken('key', text(a.key)) ?? text(a.key);
      case 'glossary':
        return inlineToken('glossary', text(a.term)) ?? text(a.term);
      case 'inline-image':
        return `![](<${this.image(text(a.url)).replace(/[<>\n]/g, encodeURIComponent)}>)`;
      case 'synced':
        return this.synced(text(a.id));
      default:
        return null;
    }
  }

  /**
   * A tag with no Darkdown equivalent keeps what it says as Markdown: its body (under its title or
   * label, in bold, when it has one), or the address a self-closing one points to.
   */
  private keptAsText(node: Node): string {
    const name = node.tag ?? 'tag';
    this.count(keptMessage(name));
    const a: Attributes = node.attributes;
    if (node.lines.length < 4) return typeof a.url === 'string' ? `<${a.url}>` : '';
    const heading = text(a.title) || text(a.label);
    const body = this.inner(node);
    return heading === '' ? body : `**${heading}**\n\n${body}`;
  }

  private codeEntry(fence: Node): Record<string, string> {
    const a: Attributes = fence.attributes;
    for (const annotation of fence.annotations) {
      if (annotation.type === 'attribute' && annotation.name !== 'title') {
        this.count(`The code block setting '${annotation.name}' has no Darkdown equivalent: it was left out`);
      }
    }
    const content = text(a.content);
    return {
      language: text(a.language) || 'none',
      code: content.endsWith('\n') ? content.slice(0, -1) : content,
      ...(text(a.title) !== '' ? { title: text(a.title) } : {}),
    };
  }

  /**
   * `{% table %}` of `{% row %}` and `{% cell %}` tags. Markdoc's parser turns a table tag's body
   * into its own list-based table, so the body is read again on its own, as plain tags.
   */
  private table(node: Node): string {
    const [, open, close] = node.lines;
    const innerLines = this.lines.slice(open ?? 0, close ?? 0);
    const inner = new Converter(innerLines, this.options, this.unconverted);
    const rows = tagsNamed(Markdoc.parse(innerLines.join('\n')), 'row').map((row) =>
      tagsNamed(row, 'cell').map((cell) => ({ content: inner.inner(cell), width: cellWidth(cell) })),
    );
    const cols = rows.reduce((max, row) => Math.max(max, row.length), 0);
    const widths = Array.from({ length: cols }, (_, i) => rows[0]?.[i]?.width ?? 0);
    return pluginText('table', {
      cols,
      rows: rows.length,
      widths,
      contents: rows.map((row) => Array.from({ length: cols }, (_, i) => row[i]?.content ?? '')),
    });
  }

  /**
   * A block of Markdown holding inline tags or links: each tag's source text is found by Markdoc's
   * tag scanner and replaced when it is the next tag the parser saw here (a tag written inside inline
   * code is no tag, and the parser does not list it).
   */
  private inline(source: string, node: Node): string {
    const tags: Node[] = [];
    const links: Array<{ href: string; target: string }> = [];
    for (const child of node.walk()) {
      const { href, src } = child.attributes as { href?: unknown; src?: unknown };
      if (child.type === 'tag') tags.push(child);
      else if (child.type === 'link' && typeof href === 'string')
        links.push({ href, target: this.link(href) });
      else if (child.type === 'image' && typeof src === 'string')
        links.push({ href: src, target: this.image(src) });
    }
    let out = '';
    let copied = 0;
    let next = 0;
    const open: string[] = [];
    for (const span of tags.length === 0 ? [] : Markdoc.parseTags(source)) {
      const name = (span.meta as { tag?: string } | undefined)?.tag;
      if (span.type === 'text' || name === undefined) continue;
      const { start, end } = span as unknown as { start: number; end: number };
      let replacement = '';
      if (span.type === 'tag_close') {
        if (open.at(-1) !== name) continue;
        open.pop();
      } else {
        const expected = tags[next];
        if (expected?.tag !== name) continue;
        next++;
        if (span.type === 'tag_open') {
          open.push(name);
          this.count(keptMessage(name));
        } else replacement = this.inlineTag(expected) ?? this.keptAsText(expected);
      }
      out += source.slice(copied, start) + replacement;
      copied = end + 1;
    }
    out += source.slice(copied);
    return this.relinked(out, links);
  }

  /** Links to other pages' files (`../setup.md#anchor`) as Darkdown page links; images resolved. */
  private relinked(source: string, links: ReadonlyArray<{ href: string; target: string }>): string {
    let out = source;
    let from = 0;
    for (const { href, target } of links) {
      if (target === href) continue;
      const at = out.indexOf(`](${href}`, from);
      const after = out.charAt(at + href.length + 2);
      if (at < 0 || (after !== ')' && after !== ' ')) continue;
      out = `${out.slice(0, at + 2)}${target}${out.slice(at + 2 + href.length)}`;
      from = at + 2 + target.length;
    }
    return out;
  }

  private link(href: string): string {
    return this.options.resolveLink?.(href) ?? href;
  }

  private image(src: string): string {
    return this.options.resolveImage?.(src) ?? this.link(src);
  }

  /** A synced block's contents in its place, with what its conversion counted. */
  private synced(id: string): string {
    const resolve = this.options.syncedBlock;
    if (resolve === undefined) return pluginText('synced-block', { syncedBlockId: id });
    const block = resolve(id);
    if (block === undefined) {
      // Kept as Darkdown's placeholder, which names the block: nothing of the page is lost, and an
      // export of a block Quire never held (format=markdoc) imports back as it was.
      this.count(`The synced block '${id}' is not in _synced-blocks/: its placeholder was kept`);
      return pluginText('synced-block', { syncedBlockId: id });
    }
    for (const [message, n] of block.unconverted)
      this.unconverted.set(message, (this.unconverted.get(message) ?? 0) + n);
    return block.body;
  }

  private count(message: string): void {
    this.unconverted.set(message, (this.unconverted.get(message) ?? 0) + 1);
  }
}
