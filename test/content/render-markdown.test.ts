import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderHtml, renderMarkdown } from '../../src/content/index.ts';
import { page, plugin } from './helpers.ts';

describe('renderMarkdown: plugins', () => {
  it.each([
    ['info', 'NOTE'],
    ['success', 'TIP'],
    ['warning', 'WARNING'],
    ['error', 'CAUTION'],
  ])('turns a %s callout into a GitHub %s alert with a bold title line', (type, alert) => {
    const md = renderMarkdown(page(plugin('callout', { type, title: 'Heads up', text: 'Body *text*.' })));
    expect(md).toBe(`> [!${alert}]\n> **Heads up**\n>\n> Body *text*.\n`);
  });

  it('quotes every line of a callout holding a list and a code block', () => {
    const text = '- one\n- two\n\n```js\nx();\n```';
    expect(renderMarkdown(page(plugin('callout', { type: 'info', title: '', text })))).toBe(
      '> [!NOTE]\n> - one\n> - two\n>\n> ```js\n> x();\n> ```\n',
    );
  });

  it('writes a code block as a fence with its language, longer than any backtick run inside', () => {
    expect(
      renderMarkdown(page(plugin('code-block', { languageBlocks: [{ language: 'md', code: 'a\n```\nb' }] }))),
    ).toBe('````md\na\n```\nb\n````\n');
    expect(
      renderMarkdown(page(plugin('code-block', { languageBlocks: [{ language: 'none', code: 'x' }] }))),
    ).toBe('```\nx\n```\n');
  });

  it('writes code tabs as a bold title line and a fence per entry', () => {
    const md = renderMarkdown(
      page(
        plugin('code-block', {
          languageBlocks: [
            { language: 'js', code: 'a()', title: 'Node' },
            { language: 'python', code: 'b()' },
          ],
        }),
      ),
    );
    expect(md).toBe('**Node**\n\n```js\na()\n```\n\n**python**\n\n```python\nb()\n```\n');
  });

  it('writes an image as ![caption](url)', () => {
    const md = renderMarkdown(
      page(plugin('image', { url: 'https://x.test/a b.png', mode: 'full', caption: 'A [big] *one*' })),
    );
    expect(md).toBe('![A \\[big\\] one](https://x.test/a%20b.png)\n');
  });

  it('keeps custom HTML as one HTML block', () => {
    const md = renderMarkdown(page(plugin('custom-html', { contents: '<div>\n\n<b>x</b>\n</div>' })));
    expect(md).toBe('<div>\n<b>x</b>\n</div>\n');
  });

  it('sanitises the custom HTML it keeps', () => {
    const contents =
      '<div onclick="alert(1)"><a href="javascript:alert(3)">x</a><script>alert(2)</script></div>';
    const md = renderMarkdown(page(plugin('custom-html', { contents })));
    expect(md).toBe('<div><a>x</a></div>\n');
  });

  it('links to videos', () => {
    expect(renderMarkdown(page(plugin('video', { provider: 'youtube', videoId: 'abc' })))).toBe(
      '[Video](https://www.youtube.com/watch?v=abc)\n',
    );
    expect(renderMarkdown(page(plugin('video', { provider: 'vimeo', videoId: '42' })))).toBe(
      '[Video](https://vimeo.com/42)\n',
    );
    expect(renderMarkdown(page(plugin('video', { provider: 'loom', videoId: 'l1' })))).toBe(
      '[Video](https://www.loom.com/share/l1)\n',
    );
    expect(
      renderMarkdown(page(plugin('video', { provider: 'raw', videoId: 'https://cdn.test/v.mp4' }))),
    ).toBe('[Video](https://cdn.test/v.mp4)\n');
  });

  it('writes a synced block placeholder', () => {
    expect(renderMarkdown(page(plugin('synced-block', { syncedBlockId: 'b-1' })))).toBe(
      '<!-- synced-block b-1 -->\n',
    );
  });

  it('writes a pipe table: | escaped, line breaks as <br>, cells converted', () => {
    const md = renderMarkdown(
      page(
        plugin('table', {
          contents: [
            ['Name', 'Pipe | here'],
            ['`a|b`', 'line one\nline two'],
            ['- x\n- y', '%v%'],
          ],
        }),
      ),
      { variables: { v: 'a|b' } },
    );
    expect(md).toBe(
      '| Name | Pipe \\| here |\n| --- | --- |\n| `a\\|b` | line one<br>line two |\n| - x<br>- y | a\\|b |\n',
    );
  });

  it('writes tabs and accordions as a bold title line then the content', () => {
    expect(
      renderMarkdown(
        page(
          plugin('tabs', {
            tabs: [
              { title: 'A', content: '- x' },
              { title: 'B', content: 'y' },
            ],
          }),
        ),
      ),
    ).toBe('**A**\n\n- x\n\n**B**\n\ny\n');
    expect(renderMarkdown(page(plugin('accordion', { title: 'More', open: false, content: 'Hidden' })))).toBe(
      '**More**\n\nHidden\n',
    );
  });

  it('writes cards as a bulleted list of links with their text', () => {
    const md = renderMarkdown(
      page(
        plugin('cards', {
          view: 'grid',
          cards: [
            { title: 'Start', text: 'Begin here', link: '/g/start' },
            { title: 'No link', text: '', link: '' },
          ],
        }),
      ),
    );
    expect(md).toBe('- [Start](/g/start) — Begin here\n- **No link**\n');
  });

  it('leaves unknown plugin types out', () => {
    expect(renderMarkdown(page('a', plugin('mystery', {}), 'b'))).toBe('a\n\n\n\nb\n');
  });
});

describe('renderMarkdown: splicing keeps the source', () => {
  it('returns Markdown without plugins byte for byte', () => {
    const source =
      '# T\r\n\r\nSome *odd*   spacing\\\nand <span>html</span>\n\n* star list\n+ plus\n\npara\n\n    indented code %x%\n';
    expect(renderMarkdown(source, { variables: { x: 'X' } })).toBe(source);
  });

  it('replaces only the plugin lines, leaving the rest exactly as written', () => {
    const source =
      '## Intro  \n\nText  with  spaces.\n\n' +
      plugin('callout', { type: 'info', title: '', text: 'x' }) +
      '\n\n*   item\n';
    expect(renderMarkdown(source)).toBe('## Intro  \n\nText  with  spaces.\n\n> [!NOTE]\n> x\n\n*   item\n');
  });

  it('separates a plugin from an adjacent paragraph so it cannot join it', () => {
    const source = 'Before\n' + plugin('tabs', { tabs: [{ title: 'T', content: 'c' }] }) + '\nAfter\n';
    expect(renderMarkdown(source)).toBe('Before\n\n**T**\n\nc\n\nAfter\n');
  });

  it('replaces a pretty-printed plugin spanning many lines', () => {
    const source =
      'a\n\n' + plugin('code-block', { languageBlocks: [{ language: 'js', code: 'x' }] }, true) + '\n\nb\n';
    expect(renderMarkdown(source)).toBe('a\n\n```js\nx\n```\n\nb\n');
  });

  it('indents a plugin inside a list item', () => {
    const source =
      '- item\n\n  ' + plugin('code-block', { languageBlocks: [{ language: 'sh', code: 'ls\npwd' }] }) + '\n';
    expect(renderMarkdown(source)).toBe('- item\n\n  ```sh\n  ls\n  pwd\n  ```\n');
  });

  it('replaces inline tokens, variables and auto links in place, not inside code', () => {
    const source =
      'Press $inline[key,Ctrl+<C>] for $inline[badge,New | hot,success] $inline[icon,fas fa-x]and `%v% $inline[key,K]` %v% [auto$](/doc/page#a).\n';
    const md = renderMarkdown(source, {
      variables: { v: 'a*b' },
      pageTitles: new Map([['doc/page', 'The [Page]']]),
    });
    expect(md).toBe(
      'Press <kbd>Ctrl+&lt;C&gt;</kbd> for New \\| hot and `%v% $inline[key,K]` a\\*b [The \\[Page\\]](/doc/page#a).\n',
    );
  });

  it('leaves a code span copy alone when the real token comes after it', () => {
    const source = '`$inline[glossary,API]` then $inline[glossary,API]\n';
    expect(renderMarkdown(source)).toBe('`$inline[glossary,API]` then API\n');
  });

  it('does not replace backslash-escaped or fenced look-alikes', () => {
    const source = '\\$inline[key,A] and %v%\n\n```\n%v% $inline[key,B]\n```\n';
    expect(renderMarkdown(source, { variables: { v: 'V' } })).toBe(
      '\\$inline[key,A] and V\n\n```\n%v% $inline[key,B]\n```\n',
    );
  });

  it('replaces constructs in headings, table cells and quotes', () => {
    const source = '## %v% guide\n\n| a | b |\n|---|---|\n| %v% | $inline[key,K] |\n\n> quoted %v%\n';
    expect(renderMarkdown(source, { variables: { v: 'Quire' } })).toBe(
      '## Quire guide\n\n| a | b |\n|---|---|\n| Quire | <kbd>K</kbd> |\n\n> quoted Quire\n',
    );
  });

  it('resolves asset URLs and drops the mapping comments', () => {
    const source =
      'Logo: ![%v% logo](asset:7) and asset:7 in text\n\n<!-- asset:7=https://cdn.test/l.png -->\n';
    expect(renderMarkdown(source, { variables: { v: 'Q' } })).toBe(
      'Logo: ![Q logo](https://cdn.test/l.png) and asset:7 in text\n',
    );
  });
});

/** Markdown's own characters, for sources made of fragments. */
const MARKDOWN_PARTS = ['#', '## ', '`', '```', '[', ']', '(', ')', '|', '-', '> ', '\n', '\r\n', ' '];

describe('renderMarkdown: property', () => {
  it('returns any source without Darkdown constructs or HTML byte for byte', () => {
    const markdownish = fc
      .array(fc.oneof(fc.constantFrom(...MARKDOWN_PARTS, '*', '_'), fc.string({ maxLength: 8 })), {
        maxLength: 60,
      })
      .map((parts) => parts.join(''))
      .filter((s) => !s.includes('$') && !s.includes('%') && !s.includes('asset:'))
      // HTML goes through the allowlist (test/markdown-xss.test.ts); a `<` before a letter, `/`, `!` or `?` may start it.
      .filter((s) => !/<[A-Za-z/!?]/.test(s));
    fc.assert(
      fc.property(markdownish, (source) => {
        expect(renderMarkdown(source, { variables: { v: 'x' } })).toBe(source);
      }),
      { numRuns: 500 },
    );
  });

  it('puts each value where its name was read: read again, the output shows what the HTML shows', () => {
    // Names in link addresses, code spans, image descriptions and table rows, and next to emphasis
    // delimiters and `<`, among Markdown's own characters. Delimiters and `<` come only with their
    // fragments, set apart by spaces; `@` not at all (a value may complete an address that readers
    // link: decision 0003).
    const parts = fc.constantFrom(
      ...MARKDOWN_PARTS,
      ...['| --- |', '\\', 'a'],
      ...['%v%', '[a](%v%)', '](%v%)', '| %v% |', '`%v%`', '![%v%](%v%)', '![a %v%]', '$inline[key,K]'],
      ...['**%v%**', '*%v%*', '_%v%_', 'a*%v%*', 'a_%v%_', '*%v%', '%v%*', '%v%**', '~~%v%~~', '*%v%*.'],
      ...['<%v%>', '</%v%>', '<!%v%', 'x<%v%', 'a*$inline[key,K]*', '(*%v%*)', '%v%_a', '2*%v%*3'],
    );
    const plain = fc.string({ maxLength: 8 }).filter((s) => !/[*_~<@$%]|asset:/.test(s));
    const source = fc
      .array(fc.tuple(fc.oneof(parts, plain), fc.constantFrom(' ', '\n', '')), { maxLength: 40 })
      .map((p) => p.map(([part, gap]) => (/[*_~<]/.test(part) ? ` ${part} ` : part + gap)).join(''))
      // Inline footnotes are read on their own, and their constructs left as written (decision 0003).
      .filter((s) => !s.includes('^['));
    const variables = { v: 'Value' };
    fc.assert(
      fc.property(source, (s) => {
        // A value may stand between `<span>` and `</span>`, where escaping cannot keep a delimiter's reading.
        const read = renderHtml(renderMarkdown(s, { variables }) ?? '').replaceAll(/<\/?span>/g, '');
        expect(read).toBe(renderHtml(s, { variables }));
      }),
      { numRuns: 3000 },
    );
  });

  it('escapes the text next to a value that would read otherwise, and leaves the common cases alone', () => {
    const variables = { v: 'Value' };
    const cases: Array<[string, string]> = [
      ['*%v%*.', '*Value*.'],
      ['**%v%**', '**Value**'],
      ['~~%v%~~', '~~Value~~'],
      ['a*%v%*', 'a\\*Value*'],
      ['snake_%v%_case', 'snake\\_Value\\_case'],
      ['<%v%>', '\\<Value>'],
      ['</%v%>', '\\</Value>'],
      ['<a%v%>', '\\<aValue>'],
      // A backslash before `_` would let linkify read the address before it: the value is set apart.
      ['x@y.io_%v%', 'x@y.io_<span>Value</span>'],
      ['%v%_a_', '<span>Value</span>_a_'],
      // Read again with the page's references and footnotes, and its task boxes: nothing to wrap.
      ['Use %v%: [docs][d]\n\n[d]: /x', 'Use Value: [docs][d]\n\n[d]: /x'],
      ['See %v%.[^1]\n\n[^1]: n', 'See Value.[^1]\n\n[^1]: n'],
      ['- [X] see %v%.', '- [X] see Value.'],
      // A cell's escaped pipe, with a copy of its text in a later cell's code.
      [
        '| a | b |\n| - | - |\n| a\\|b %v% | `a|b %v%` |',
        '| a | b |\n| - | - |\n| a\\|b Value | `a|b %v%` |',
      ],
      // In an image's description, an item is its text (markup there would be the alt's text).
      ['![$inline[key,K]](x.png)', '![K](x.png)'],
      // The image, not a copy of its description in a link's address.
      ['[a](![%v%]) ![%v%](y.png)', '[a](![%v%]) ![Value](y.png)'],
      // `]:` with no label before it starts no definition: the backslash is safe there.
      [']:  <%v%>', ']:  \\<Value>'],
      // Where a definition's address would start, the value is set apart instead of a backslash.
      ['a\n[x]: <%v%>', 'a\n[x]: <<span>Value</span>>'],
      // A backslash goes where its character was read or nowhere (a NUL keeps the line from being found).
      ['**b** a*%v%*\u0000', '**b** a*Value*\u0000'],
    ];
    for (const [source, markdown] of cases)
      expect(renderMarkdown(source, { variables }), source).toBe(markdown);
  });

  it("places Darkdown's inline constructs, auto links and asset addresses where they were read", () => {
    // Keys, glossary terms, auto links, footnote references and images with stored assets, in lists,
    // quotes, tables and code, next to links and code spans that hold the same text. Left out: asset
    // addresses given by reference definitions (left as written: decision 0003) and inline footnotes.
    const parts = fc.constantFrom(
      ...MARKDOWN_PARTS,
      ...['| --- |', '\\', 'a', '1. ', '- ', '    ', '%v%', '[^1]', '\n\n[^1]: n %v%\n', '`asset:7`'],
      ...['$inline[key,K]', '$inline[glossary,G]', '[auto$](/d/p)', '[auto$](/d/p#h)', '![i](asset:7)'],
      ...['[l](asset:7)', '![a %v%](asset:7)', '[![i](asset:7)](x)', '| $inline[key,K] | %v% |', '> %v% | a'],
    );
    const plain = fc.string({ maxLength: 8 }).filter((s) => !/[*_~<@$%]|asset:/.test(s));
    const source = fc
      .array(fc.tuple(fc.oneof(parts, plain), fc.constantFrom(' ', '\n', '')), { maxLength: 40 })
      .map(
        (p) => `${p.map(([part, gap]) => part + gap).join('')}\n\n<!-- asset:7=https://cdn.test/l.png -->\n`,
      )
      .filter((s) => !s.includes('^['));
    const ctx = { variables: { v: 'Value' }, pageTitles: new Map([['d/p', 'Page P']]) };
    // What Markdown output writes otherwise by design: a glossary term as its text, and no blank
    // space at the end of a line or of a code block (the asset comments at the end are dropped).
    const normalised = (html: string) =>
      html
        .replaceAll(/<\/?span>/g, '')
        .replaceAll('<abbr class="glossary">G</abbr>', 'G')
        .replace(/[ \t]+\n/g, '\n')
        .replace(/\n+<\/code>/g, '</code>');
    // A heading's anchor counts an [auto$] link as its slug (decision 0003), and Markdown output writes
    // the link with its title: read back, such a heading (and a repeat after it) gets another id.
    const withoutIds = (html: string) => html.replace(/(<h[1-6]) id="[^"]*"/g, '$1');
    fc.assert(
      fc.property(source, (s) => {
        const read = renderHtml(renderMarkdown(s, ctx) ?? '', { pageTitles: ctx.pageTitles });
        const ids = s.includes('[auto$]') ? withoutIds : (html: string) => html;
        expect(ids(normalised(read))).toBe(ids(normalised(renderHtml(s, ctx))));
      }),
      { numRuns: 3000 },
    );
  });
});
