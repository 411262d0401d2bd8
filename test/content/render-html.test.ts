import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/content/index.ts';
import { page, plainCode, plugin, squash } from './helpers.ts';

describe('renderHtml: block plugins', () => {
  it('renders a callout with its title in its own element and Darkdown text', () => {
    const html = renderHtml(
      plugin('callout', { type: 'warning', title: 'Mind the gap', text: 'Use **care**.' }),
    );
    expect(squash(html)).toBe(
      '<div class="callout callout-warning"><div class="callout-title">Mind the gap</div>' +
        '<div class="callout-body"><p>Use <strong>care</strong>.</p></div></div>',
    );
  });

  it('renders a list and a code block inside a callout', () => {
    const text = 'Steps:\n\n- first\n- second\n\n```js\nconst a = 1 < 2;\n```';
    const html = squash(plainCode(renderHtml(plugin('callout', { type: 'error', title: '', text }))));
    expect(html).toContain('<div class="callout callout-error">');
    expect(html).not.toContain('callout-title');
    expect(html).toContain('<ul><li>first</li><li>second</li></ul>');
    expect(html).toContain('<pre><code class="language-js">const a = 1 &lt; 2;\n</code></pre>');
  });

  it('falls back to info for an unknown callout type', () => {
    expect(renderHtml(plugin('callout', { type: 'purple', title: 't', text: 'x' }))).toContain(
      'callout-info',
    );
  });

  it('renders a one-entry code block as pre/code, escaped and highlighted', () => {
    const html = renderHtml(
      plugin('code-block', { languageBlocks: [{ language: 'html', code: '<b>&</b>' }] }),
    );
    expect(html).toBe(
      '<pre><code class="language-html"><span class="hljs-tag">&lt;<span class="hljs-name">b</span>&gt;</span>&amp;' +
        '<span class="hljs-tag">&lt;/<span class="hljs-name">b</span>&gt;</span>\n</code></pre>\n',
    );
  });

  it('gives language "none" no highlighting class', () => {
    const html = renderHtml(plugin('code-block', { languageBlocks: [{ language: 'none', code: 'plain' }] }));
    expect(html).toBe('<pre><code>plain\n</code></pre>\n');
  });

  it('keeps the title of a single titled code entry', () => {
    const html = squash(
      plainCode(
        renderHtml(plugin('code-block', { languageBlocks: [{ language: 'sh', code: 'ls', title: 'List' }] })),
      ),
    );
    expect(html).toBe(
      '<div class="code-block"><div class="code-title">List</div><pre><code class="language-sh">ls\n</code></pre></div>',
    );
  });

  it('renders several entries as code tabs, titled by title or language', () => {
    const html = squash(
      plainCode(
        renderHtml(
          plugin('code-block', {
            languageBlocks: [
              { language: 'js', code: 'a()', title: 'Node <18>' },
              { language: 'python', code: 'b()' },
              { language: 'none', code: 'c' },
            ],
          }),
        ),
      ),
    );
    expect(html).toBe(
      '<div class="code-tabs">' +
        '<div class="code-tab"><div class="code-tab-title">Node &lt;18&gt;</div><pre><code class="language-js">a()\n</code></pre></div>' +
        '<div class="code-tab"><div class="code-tab-title">python</div><pre><code class="language-python">b()\n</code></pre></div>' +
        '<div class="code-tab"><div class="code-tab-title">Code 3</div><pre><code>c\n</code></pre></div>' +
        '</div>',
    );
  });

  it('renders an image as a figure, width from a numeric mode, caption as Darkdown', () => {
    const html = renderHtml(
      plugin('image', {
        url: 'https://cdn.example.com/a.png',
        mode: '300',
        width: 900,
        height: 300,
        caption: 'The *A* view',
      }),
    );
    expect(squash(html)).toBe(
      '<figure class="image image-fixed"><img src="https://cdn.example.com/a.png" alt="The A view" width="300" />' +
        '<figcaption>The <em>A</em> view</figcaption></figure>',
    );
  });

  it('renders a responsive image without width or caption', () => {
    const html = renderHtml(plugin('image', { url: '/img/b.png', mode: 'responsive', caption: null }));
    expect(squash(html)).toBe(
      '<figure class="image image-responsive"><img src="/img/b.png" alt="" /></figure>',
    );
  });

  it('renders custom HTML sanitised like all HTML', () => {
    const html = renderHtml(
      plugin('custom-html', {
        contents: '<div class="note" onclick="x()"><script>bad()</script><b>ok</b></div>',
      }),
    );
    expect(squash(html)).toBe('<div class="note"><b>ok</b></div>');
  });

  it.each([
    ['youtube', 'dQw4w9WgXcQ', 'https://www.youtube.com/embed/dQw4w9WgXcQ'],
    ['vimeo', '76979871', 'https://player.vimeo.com/video/76979871'],
    ['loom', 'a1b2c3', 'https://www.loom.com/embed/a1b2c3'],
  ])('embeds a %s video in an iframe', (provider, videoId, url) => {
    const html = renderHtml(plugin('video', { provider, videoId }));
    expect(html).toContain(`<iframe src="${url}"`);
  });

  it('uses <video> for raw videos and drops a non-http raw URL', () => {
    expect(
      renderHtml(plugin('video', { provider: 'raw', videoId: 'https://cdn.example.com/v.mp4' })),
    ).toContain('<video src="https://cdn.example.com/v.mp4" controls');
    expect(renderHtml(plugin('video', { provider: 'raw', videoId: 'javascript:alert(1)' }))).toBe('');
  });

  it('refuses a video id that would change the embed URL', () => {
    expect(renderHtml(plugin('video', { provider: 'youtube', videoId: '../../evil' }))).toBe('');
  });

  it('renders a synced block as a placeholder', () => {
    expect(renderHtml(plugin('synced-block', { syncedBlockId: 'blk-9' }))).toBe(
      '<div class="synced-block" data-synced-block-id="blk-9"></div>\n',
    );
  });

  it('renders a table with row 0 in thead and Darkdown cells', () => {
    const html = squash(
      renderHtml(
        plugin('table', {
          cols: 2,
          rows: 3,
          widths: [120, 0],
          contents: [
            ['Name', '**Kind**'],
            ['`a|b`', '- one\n- two'],
            ['plain', '<script>x</script>after'],
          ],
        }),
      ),
    );
    expect(html).toBe(
      '<table><colgroup><col width="120" /><col /></colgroup>' +
        '<thead><tr><th>Name</th><th><strong>Kind</strong></th></tr></thead>' +
        '<tbody><tr><td><code>a|b</code></td><td><ul><li>one</li><li>two</li></ul></td></tr>' +
        '<tr><td>plain</td><td>after</td></tr></tbody></table>',
    );
  });

  it('pads short rows so every row has the same number of cells', () => {
    const html = squash(renderHtml(plugin('table', { contents: [['a', 'b'], ['c']] })));
    expect(html).toContain('<tr><td>c</td><td></td></tr>');
  });

  it('renders tabs as panels with Darkdown content', () => {
    const html = squash(
      renderHtml(
        plugin('tabs', {
          tabs: [
            { title: 'macOS', content: '1. open\n2. run' },
            { title: 'Linux', content: '```sh\napt install quire\n```' },
          ],
        }),
      ),
    );
    expect(html).toBe(
      '<div class="tabs">' +
        '<div class="tab"><div class="tab-title">macOS</div><div class="tab-panel"><ol><li>open</li><li>run</li></ol></div></div>' +
        '<div class="tab"><div class="tab-title">Linux</div><div class="tab-panel"><pre><code class="language-sh">apt install quire\n</code></pre></div></div>' +
        '</div>',
    );
  });

  it('renders cards as a list of linked cards, dropping unsafe links', () => {
    const html = squash(
      renderHtml(
        plugin('cards', {
          view: 'list',
          cards: [
            { title: 'Start', text: 'Begin here', link: '/guides/start' },
            { title: 'Evil', text: 'x', link: 'javascript:alert(1)' },
          ],
        }),
      ),
    );
    expect(html).toBe(
      '<ul class="cards cards-list">' +
        '<li class="card"><a class="card-link" href="/guides/start"><span class="card-title">Start</span><span class="card-text">Begin here</span></a></li>' +
        '<li class="card"><span class="card-title">Evil</span><span class="card-text">x</span></li>' +
        '</ul>',
    );
  });

  it('renders an accordion as details/summary, open when asked', () => {
    const open = squash(renderHtml(plugin('accordion', { title: 'FAQ', open: true, content: '- a' })));
    expect(open).toBe(
      '<details class="accordion" open><summary>FAQ</summary><div class="accordion-body"><ul><li>a</li></ul></div></details>',
    );
    const closed = renderHtml(plugin('accordion', { title: 'FAQ', open: false, content: 'x' }));
    expect(closed).toContain('<details class="accordion"><summary>');
  });

  it('leaves unknown plugin types out', () => {
    expect(renderHtml(page('before', plugin('mystery', { a: 1 }), 'after'))).toBe(
      '<p>before</p>\n<p>after</p>\n',
    );
  });
});

describe('renderHtml: headings', () => {
  it('gives headings an id from their text, numbering repeats', () => {
    const html = renderHtml(page('## Getting Started!', '### Café au lait', '## Getting started', '## ***'));
    expect(html).toContain('<h2 id="getting-started">Getting Started!</h2>');
    expect(html).toContain('<h3 id="café-au-lait">Café au lait</h3>');
    expect(html).toContain('<h2 id="getting-started-2">Getting started</h2>');
    expect(html).toContain('<h2 id="section">***</h2>');
  });

  it('builds the id from rendered text (variables, badges)', () => {
    const html = renderHtml('## Install %product% $inline[badge,Beta,warning]', {
      variables: { product: 'Quire' },
    });
    expect(html).toBe(
      '<h2 id="install-quire-beta">Install Quire <span class="badge badge-warning">Beta</span></h2>\n',
    );
  });
});

describe('renderHtml: GFM', () => {
  it('renders task lists with disabled checkboxes', () => {
    const html = squash(renderHtml('- [x] done\n- [ ] open\n- plain'));
    expect(html).toBe(
      '<ul class="contains-task-list">' +
        '<li class="task-list-item"><input class="task-list-item-checkbox" type="checkbox" disabled checked /> done</li>' +
        '<li class="task-list-item"><input class="task-list-item-checkbox" type="checkbox" disabled /> open</li>' +
        '<li>plain</li></ul>',
    );
  });

  it('renders tables, strikethrough, autolinks and footnotes', () => {
    const html = renderHtml(
      page(
        '| a | b |\n|---|:-:|\n| 1 | 2 |',
        '~~gone~~ see https://example.com and www.example.org.',
        'Note[^n].',
        '[^n]: The note.',
      ),
    );
    expect(html).toContain('<td style="text-align:center">2</td>');
    expect(html).toContain('<s>gone</s>');
    expect(html).toContain('<a href="https://example.com">https://example.com</a>');
    expect(html).toContain('<a href="http://www.example.org">www.example.org</a>.');
    expect(html).toContain('<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup>');
    expect(html).toContain('<li id="fn1" class="footnote-item"><p>The note.');
  });

  it('does not link bare domain names (GitHub does not either)', () => {
    expect(renderHtml('see example.com')).toBe('<p>see example.com</p>\n');
  });
});
