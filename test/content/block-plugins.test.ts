import { describe, expect, it } from 'vitest';
import { renderHtml, renderMarkdown, renderText } from '../../src/content/index.ts';
import { page, phpPlugin, plainCode, plugin, squash } from './helpers.ts';

describe('block plugins: finding the end by reading the JSON', () => {
  it('reads `]`, `$` and `]$` inside JSON strings as content', () => {
    const code = 'arr[0]$ = "]$";\n]$\n$plugin[';
    const source = page(plugin('code-block', { languageBlocks: [{ language: 'js', code }] }, true), 'after');
    expect(plainCode(renderHtml(source))).toBe(
      '<pre><code class="language-js">arr[0]$ = "]$";\n]$\n$plugin[\n</code></pre>\n<p>after</p>\n',
    );
    expect(renderText(source)).toBe(`${code}\n\nafter`);
    expect(renderMarkdown(source)).toBe(`\`\`\`js\n${code}\n\`\`\`\n\nafter\n`);
  });

  it('reads PHP-escaped JSON: \\/ and \\u00e9 are ordinary JSON', () => {
    const source = phpPlugin('callout', {
      type: 'info',
      title: 'Café',
      text: 'See [docs](https://x.test/a/b) — é',
    });
    expect(source).toContain('\\u00e9');
    expect(source).toContain('https:\\/\\/x.test\\/a\\/b');
    expect(renderHtml(source)).toContain('<div class="callout-title">Café</div>');
    expect(renderHtml(source)).toContain('<a href="https://x.test/a/b">docs</a> — é');
    expect(renderMarkdown(source)).toBe('> [!NOTE]\n> **Café**\n>\n> See [docs](https://x.test/a/b) — é');
  });

  it('accepts the JSON on the opener line, and whitespace after the closer', () => {
    const source = '$plugin[  {"type":"synced-block","data":{"syncedBlockId":"s"}}\n]$   \nnext';
    expect(renderHtml(source)).toBe(
      '<div class="synced-block" data-synced-block-id="s"></div>\n<p>next</p>\n',
    );
  });

  it('reads a plugin that interrupts a paragraph', () => {
    const source = `para\n${plugin('synced-block', { syncedBlockId: 's' })}\nmore`;
    expect(renderHtml(source)).toBe(
      '<p>para</p>\n<div class="synced-block" data-synced-block-id="s"></div>\n<p>more</p>\n',
    );
  });

  it('ignores $plugin[ that is not at the start of a line or is indented as code', () => {
    const inline = `text ${plugin('synced-block', { syncedBlockId: 's' })}`;
    expect(renderHtml(inline)).not.toContain('class="synced-block"');
    const indented = `    ${plugin('synced-block', { syncedBlockId: 's' })}`;
    expect(renderHtml(indented)).toMatch(/^<pre><code>\$plugin\[/);
  });
});

describe('block plugins: malformed JSON is shown as text in every format', () => {
  const broken = '$plugin[{"type": "callout", "data": {"text": "oops" "title": 1}}]$';
  const source = page('before', broken, 'after');

  it('html shows the text, escaped, and nothing is thrown', () => {
    expect(renderHtml(source)).toBe(
      '<p>before</p>\n<p>$plugin[{"type": "callout", "data": {"text": "oops" "title": 1}}]$</p>\n<p>after</p>\n',
    );
  });

  it('markdown keeps it as written and text gives it verbatim', () => {
    expect(renderMarkdown(source)).toBe(source);
    expect(renderText(source)).toBe(`before\n\n${broken}\n\nafter`);
  });

  it('shows a broken multi-line plugin as one piece of text, up to its ]$ line', () => {
    const multi = '$plugin[\n{\n  "type": "callout",\n  "data": { "text": "unterminated }\n}\n]$';
    const html = renderHtml(page(multi, 'after'));
    expect(html).toBe(
      '<p>$plugin[\n{\n  "type": "callout",\n  "data": { "text": "unterminated }\n}\n]$</p>\n<p>after</p>\n',
    );
  });

  it('escapes HTML inside a broken plugin', () => {
    const html = renderHtml('$plugin[{"type": "custom-html", "data": {"contents": "<script>x()</script>"}]$');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;');
  });

  it('never lets a broken plugin swallow the valid one after it', () => {
    const next = plugin('synced-block', { syncedBlockId: 'ok' });
    const html = renderHtml(page('$plugin[{"type": "callout", "data": {', 'text', next));
    expect(html).toContain('<div class="synced-block" data-synced-block-id="ok"></div>');
  });

  it('treats JSON that is not a plugin object (no type) as text', () => {
    expect(renderHtml('$plugin[{"data": {}}]$')).toBe('<p>$plugin[{"data": {}}]$</p>\n');
  });

  it('reads an opener with no close as ordinary Markdown', () => {
    expect(renderHtml('$plugin[\n{"type": "callout", *x*')).toBe(
      '<p>$plugin[\n{"type": "callout", <em>x</em></p>\n',
    );
  });
});

describe('block plugins: nesting', () => {
  it('renders Darkdown inside callouts recursively, plugins included', () => {
    const inner = plugin('code-block', { languageBlocks: [{ language: 'sh', code: 'ls' }] });
    const source = plugin('callout', { type: 'success', title: 'T', text: `Run:\n\n${inner}` });
    expect(squash(plainCode(renderHtml(source)))).toContain(
      '<p>Run:</p><pre><code class="language-sh">ls\n</code></pre>',
    );
    expect(renderMarkdown(source)).toBe('> [!TIP]\n> **T**\n>\n> Run:\n>\n> ```sh\n> ls\n> ```');
  });

  it('renders Darkdown in table cells and tabs with inline tokens and variables', () => {
    const ctx = { variables: { v: 'Quire' } };
    const table = plugin('table', { contents: [['H'], ['$inline[badge,%v%,info] %v%']] });
    expect(renderHtml(table, ctx)).toContain('<td><span class="badge badge-info">%v%</span> Quire</td>');
    const tabs = plugin('tabs', { tabs: [{ title: '%v% tab', content: '**%v%**' }] });
    expect(renderHtml(tabs, ctx)).toContain('<div class="tab-title">Quire tab</div>');
    expect(renderHtml(tabs, ctx)).toContain('<p><strong>Quire</strong></p>');
  });

  it('stops recursing at a fixed depth instead of overflowing', () => {
    let source = 'core';
    for (let i = 0; i < 12; i += 1)
      source = plugin('callout', { type: 'info', title: `L${i}`, text: source });
    const html = renderHtml(source);
    expect(html).toContain('L11');
    expect(html).toContain('$plugin[');
  });
});
