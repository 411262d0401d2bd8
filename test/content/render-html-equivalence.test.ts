import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { featurePage, featurePageContext } from '../../bench/fixtures/feature-page.ts';
import { renderHtml, type RenderContext } from '../../src/content/index.ts';
import { renderHtmlInPlace, renderHtmlWholeDocument } from '../../src/content/html-renderer.ts';
import { sanitizeHtmlOutput } from '../../src/content/sanitiser.ts';
import { NASTY_VALUES, nestedPlugins } from '../helpers/fuzz-inputs.ts';
import { EVERY_CONSTRUCT } from '../helpers/rich-project.ts';
import { page, phpPlugin, plugin } from './helpers.ts';

/*
 * HTML output is written as the sanitiser writes it and sanitised only where raw HTML enters. These tests
 * hold that fast path to the old one, the page rendered and then sanitised as a whole: for every input the
 * fast output, sanitised again, is the old output, and sanitising it changes nothing. Pages whose raw HTML
 * only the whole-document sanitiser can follow take that path (renderHtmlInPlace gives null); the corpus
 * asserts that this stays rare and which pages they are.
 */

const require = createRequire(import.meta.url);
const spec = require('commonmark-spec') as { tests: Array<{ markdown: string; number: number }> };

const CTX: RenderContext = {
  variables: { product: 'Quire', version: { current: '2.4' }, evil: '<script>x</script>"&' },
  pageTitles: new Map([['guides/page-one', 'Page <one> & "two"']]),
};

/** Renders both ways and checks the fast output; returns whether the fast path took the page. */
function checkEquivalent(source: string, ctx: RenderContext = CTX): boolean {
  const old = renderHtmlWholeDocument(source, ctx);
  const fast = renderHtmlInPlace(source, ctx);
  const served = renderHtml(source, ctx);
  if (fast === null) {
    expect(served).toBe(old);
    return false;
  }
  const again = sanitizeHtmlOutput(fast);
  if (again !== old || again !== fast) {
    // One assertion with the source in the message, so a failure names its input.
    expect({ source, fast }).toEqual({ source, fast: old });
  }
  expect(served).toBe(fast);
  return true;
}

/** Fenced examples of a Markdown document, and the document itself. */
function documentInputs(text: string): string[] {
  const inputs = [text];
  const fence = /^( *)```[a-z]*\n([\s\S]*?)^\1```$/gm;
  for (const match of text.matchAll(fence)) {
    const indent = match[1] ?? '';
    inputs.push((match[2] ?? '').replace(new RegExp(`^${indent}`, 'gm'), ''));
  }
  return inputs;
}

const XSS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="java&#x09;script:alert(1)">x</a>',
  '<a href=" javascript:alert(1)">x</a>',
  '<iframe src="https://evil.example/x"></iframe>',
  '<iframe src="https://www.youtube.com/embed/x" onload=x></iframe>',
  '<svg><script>alert(1)</script></svg>',
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  '<style>body{}</style>',
  '<textarea><img src=x onerror=alert(1)></textarea>',
  '<select><option><img src=x onerror=1></option></select>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '<td style="text-align:left;color:red">x</td>',
  '<form action="javascript:1"><input type="submit"></form>',
  '<input type="radio" checked>',
  '<a href="//evil.example">p</a>',
  '<a href="\\\\evil.example">p</a>',
  '<img src="data:image/png;base64,AAAA">',
  '<img src="data:text/html,<script>1</script>">',
  '<a href="data:text/html,x">d</a>',
  '<!-- <script>alert(1)</script> -->',
  '<!-->',
  '<?php echo 1; ?>',
  '<![CDATA[<script>1</script>]]>',
  '<!DOCTYPE html>',
  '<object data="x"></object><embed src="x">',
  '<base href="javascript:1/">',
  '<meta http-equiv="refresh" content="0;url=javascript:1">',
  '<a href="x" target="_blank" rel="opener" onclick="1">t</a>',
  '<details open ontoggle=alert(1)><summary>s</summary>d</details>',
  '<video src="javascript:1" controls autoplay></video>',
  '<p title="a &amp; b &quot; c">&copy; &amp;amp; &#x3c;script&#x3e; &nbsp;</p>',
  '<DIV CLASS="Up">case</DIV>',
  '<div/>',
  '<br/><br /></br>',
  '</p>',
  '</div></span>',
  '<kbd>Ctrl</kbd>+<kbd>C</kbd>',
  '<b>bold <i>both</b> italic</i>',
  '<li>one<li>two',
  '<p>a<p>b',
  '<table><tr><td>a<td>b</table>',
  '<dl><dt>t<dd>d</dl>',
  '<noscript><img src=x onerror=1></noscript>',
  '<plaintext>x',
  '<xmp><b>x</b></xmp>',
  '<title>t</title>',
  '<a href="https://example.com/&quot;onmouseover=&quot;1">q</a>',
  // a no-break space separates nothing to the parser; a form feed does
  'x <a\u00a0href="javascript:1">y</a> <div\u00a0class="a">q</div> <a\fhref="https://e.x">z</a>',
  '<b\u00a0>x</b\u00a0> <i title="a\u00a0b">y</i>',
];

const LINKS = [
  '[a](javascript:alert(1))',
  '[a](JAVASCRIPT:alert(1))',
  '[a](java%09script:alert(1))',
  '[a](vbscript:x) [b](file:///etc/passwd) [c](data:text/html;base64,x)',
  '![i](data:image/png;base64,AAAA) ![j](data:image/svg+xml,x) ![k](ftp://x/y.png)',
  '[a](ftp://example.com/x) [b](irc://x) [c](foo:bar) [d](//x.example) [e](#frag) [f]()',
  '[a](<> "title") [b](x "a \\" b")',
  '<https://example.com/a?b=c&d=e> <mailto:a@b.c> <foo:bar> <tel:+1>',
  'www.example.com/path?q=1 https://example.com/x). a@b.example',
  '[ref]\n\n[ref]: javascript:alert(1)',
  '[ref]\n\n[ref]: https://example.com "T & <t>"',
  '^[inline footnote](javascript:1)',
];

const SPLIT_HTML = [
  '<div class="note">\n\n**Markdown** inside\n\n</div>',
  '<details>\n<summary>More</summary>\n\n- a\n- b\n\n</details>',
  '<div>\n\nunclosed to the end',
  '<p align="center">\n\n![logo](https://example.com/l.png)\n\n</p>',
  '<section>\n\n# Heading\n\n</section>',
  '> <div>\n> quoted\n\nafter',
  '- <div>\n  item\n- next',
  'a <span>open in a paragraph\n\nnext paragraph</span>',
  '*a <b> b* c</b>',
  '**x <em>y** z</em>',
  '<b>**a</b>**',
  'text <p> inline p',
  'text <div> inline div</div>',
  '</div>\n\n<div>',
  '<table>\n<tr>\n<td>\n\n*cell*\n\n</td>\n</tr>\n</table>',
  '<ul>\n<li>\n\n1. nested\n\n</li>\n</ul>',
  'Footnote[^1].\n\n[^1]: Note with <b>bold\n\n<div>',
  '<div>\n\n```js\ncode\n```\n\n</div>',
  '<div>\n\n| a | b |\n|---|---|\n| <b>1 | 2</b> |\n\n</div>',
  '- [ ] <select>\n- [x] task',
  '<pre>\n\n  code\n\n</pre>',
  '<textarea>\n\n*x*\n\n</textarea>',
  '<script>\nalert(1)\n</script>\n\nafter',
  '<!-- comment\n\nspanning -->',
  'a < b > c &amp; d &copy; &unknown; &#0; &#x110000;',
];

const PLUGINS = [
  plugin('callout', { type: 'info', title: 'T "q" <b>', text: '<div>\n\nopen' }),
  plugin('callout', { type: 'error', title: '', text: 'a <b>b</b> <p>c' }),
  plugin('custom-html', { contents: '<div class="x">raw</div>' }),
  plugin('custom-html', { contents: '<div>\n<script>alert(1)</script>' }),
  plugin('custom-html', { contents: '<div>' }) +
    '\n\ninside?\n\n' +
    plugin('custom-html', { contents: '</div>' }),
  plugin('custom-html', { contents: '<p>a<p>b <img src=x onerror=1> &amp; " \'' }),
  plugin('custom-html', { contents: '</div></section>' }),
  plugin('custom-html', { contents: '<a href="javascript:1">x</a><a href="https://e.x">y</a>' }),
  plugin('table', {
    cols: 2,
    rows: 3,
    widths: [100, 0],
    contents: [
      ['<b>head', 'x'],
      ['<td>cell</td>', '| a |\n|---|\n| b |'],
      ['</td></tr></table>', '- a\n- b'],
    ],
  }),
  plugin('image', { url: 'javascript:alert(1)', mode: '300', caption: 'c <b>"q"</b>' }),
  plugin('image', { url: 'data:image/png;base64,AA', mode: 'full', caption: null }),
  plugin('image', { url: '', mode: 'x"y', caption: '' }),
  plugin('image', { url: 'asset:9', mode: 'responsive', caption: 'a' }) + '\n\n<!-- asset:9=javascript:1 -->',
  plugin('video', { provider: 'raw', videoId: 'https://e.x/v.mp4?a=1&b="2"' }),
  plugin('video', { provider: 'youtube', videoId: 'abc"def' }),
  plugin('video', { provider: 'vimeo', videoId: '123' }),
  plugin('video', { provider: 'loom', videoId: 'x_y-z' }),
  plugin('synced-block', { syncedBlockId: '' }),
  plugin('synced-block', { syncedBlockId: 'a"b<c>&d' }),
  plugin('cards', {
    view: 'list',
    cards: [
      { title: 'A "t"', text: '<b>x</b>', link: 'javascript:alert(1)' },
      { title: 'B', text: 'y', link: 'java<!--x-->script:alert(1)' },
      { title: 'C', text: 'z', link: '/guides/x?a=1&b=2' },
      { title: 'D', text: 'w', link: '' },
      { title: 'E', text: 'v', link: 'ftp://x.example/' },
    ],
  }),
  plugin('tabs', {
    tabs: [
      { title: 'One <i>', content: '<div>\n\nopen' },
      { title: 'Two', content: '</div>' },
    ],
  }),
  plugin('accordion', { title: 'Acc', open: true, content: '<details><summary>s</summary>' }),
  plugin('accordion', { title: 'Closed', open: false, content: 'x' }),
  plugin('code-block', {
    languageBlocks: [
      { language: 'js" onclick="x', title: '<b>t</b>', code: '</code></pre><script>1</script>' },
    ],
  }),
  phpPlugin('code-block', {
    languageBlocks: [
      { language: 'bash', title: 'Shell', code: 'echo "&amp;"' },
      { language: 'none', title: '', code: 'x' },
    ],
  }),
  nestedPlugins(8),
];

const DARKDOWN = [
  '# Title\n\n## Section {#custom}\n\n## Section {#custom}\n\n### ***\n\n## <b>x</b>',
  'Plain *emph* **strong** ~~del~~ `code "q" <b>` and\\\nhard break  \nand soft',
  '- [ ] task\n- [x] done\n  - [X] nested\n\n1. [ ] ordered',
  '3. three\n4. four\n\n   para\n\n- tight\n- list',
  '> quote\n> > nested\n> - list',
  '```js " onclick=x\nconst a = "<b>";\n```\n\n~~~\nplain\n~~~\n\n```&amp;&lt;\nx\n```\n\n    indented <code>',
  '| a | b | c |\n|:--|:-:|--:|\n| 1 | *2* | `3` |\n| <b>4</b> | 5 |',
  '[link](https://example.com "T") <https://auto.example> [auto$](/guides/page-one#frag) [auto$](/nope/x)',
  '%product% %version.current% %evil% %missing% %%',
  '$inline[badge,Text "q",success] $inline[badge,<b>] $inline[icon,fas fa-truck "x] $inline[key,Ctrl+<] $inline[glossary,A&B]',
  'Footnote[^1] and again[^1] and[^two].\n\n[^1]: One *note*.\n[^two]: Two <b>notes</b>\n\n    with code',
  '$plugin[\n{"type":"callout","data":{"type":"info","title":"T","text":"**x** [a](b)"}}\n]$',
  '$plugin[\n{"type":"nope","data":{}}\n]$\n\n$plugin[ {broken ]$',
  '![alt *with* <b>html</b>](https://example.com/i.png "t") ![](asset:1)\n\n<!-- asset:1=https://x.example/y.png -->',
  'Setext\n===\n\n---\n\n***\n\nText\n---',
  'a\u0000b \ufffd \u202e \r\n crlf\r\nline',
];

describe('fast HTML output equals the whole-document sanitised output', () => {
  it('for the benchmark page and the every-construct page, on the fast path', () => {
    expect(checkEquivalent(featurePage(), featurePageContext)).toBe(true);
    expect(checkEquivalent(EVERY_CONSTRUCT)).toBe(true);
  });

  it('for the Darkdown guide and every example in it', () => {
    const inputs = documentInputs(readFileSync(new URL('../../docs/darkdown.md', import.meta.url), 'utf8'));
    expect(inputs.length).toBeGreaterThan(5);
    for (const input of inputs) checkEquivalent(input);
  });

  it('for every CommonMark spec example, raw HTML included', () => {
    let fast = 0;
    for (const example of spec.tests) if (checkEquivalent(example.markdown.replace(/→/g, '\t'))) fast += 1;
    // The raw-HTML sections hold the examples only a whole-document sanitise can follow.
    expect(fast).toBeGreaterThan(spec.tests.length * 0.95);
  });

  it('for Darkdown constructs, plugins and hostile inputs, alone and together', () => {
    const all = [...DARKDOWN, ...PLUGINS, ...LINKS, ...XSS, ...SPLIT_HTML];
    for (const input of all) {
      checkEquivalent(input);
      checkEquivalent(`- ${input.replace(/\n/g, '\n  ')}`);
      checkEquivalent(`> ${input.replace(/\n/g, '\n> ')}`);
      checkEquivalent(`Para ${input} end`);
    }
    checkEquivalent(page(...all));
    for (const [, value] of NASTY_VALUES) {
      if (typeof value === 'string' && value.length < 5000) {
        checkEquivalent(value);
        checkEquivalent(plugin('callout', { type: 'info', title: value, text: value }));
        checkEquivalent(plugin('custom-html', { contents: value }));
      }
    }
  });

  it('takes the fast path for raw HTML that nests with the page and for sloppy HTML blocks', () => {
    for (const source of [
      '<kbd>Ctrl</kbd>+<kbd>C</kbd> and <b>bold <i>both</i></b> <br> <img src="https://e.x/i.png">',
      '<div class="note">\n\n**Markdown** inside\n\n</div>',
      '<details>\n<summary>More</summary>\n\n- a\n- b\n\n</details>',
      '<div>\n\nunclosed to the end',
      'a <span>open in a paragraph\n\nnext paragraph</span>',
      '<li>one<li>two',
      '<p>a<p>b',
      '<a href="javascript:alert(1)">x</a> <!-- c --> <?pi?> <!DOCTYPE html> <foo>unknown</foo>',
      '*a <b> b* c</b>',
      plugin('custom-html', { contents: '<div>' }) +
        '\n\ninside\n\n' +
        plugin('custom-html', { contents: '</div>' }),
    ]) {
      expect(checkEquivalent(source), source).toBe(true);
    }
  });

  it('leaves raw HTML that restructures the page to the whole-document sanitiser', () => {
    for (const source of [
      '<p align="center">\n\n![logo](https://example.com/l.png)\n\n</p>',
      'text <p> inline p',
      '<script>alert(1)</script>',
      '<textarea>\n\n*x*\n\n</textarea>',
      plugin('callout', { type: 'info', title: 'T', text: '<div>\n\nopen' }),
    ]) {
      expect(renderHtmlInPlace(source, CTX), source).toBeNull();
      checkEquivalent(source);
    }
  });

  it('for random pages built from all of the above and random text', () => {
    const pieces = [...DARKDOWN, ...PLUGINS, ...LINKS, ...XSS, ...SPLIT_HTML];
    const piece = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...pieces) },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
      {
        weight: 2,
        arbitrary: fc.constantFrom('\n', '\n\n', ' ', '- ', '> ', '    ', '<', '</', '>', '&', '*', '`', '|'),
      },
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        checkEquivalent(parts.join(''));
      }),
      { numRuns: 1500, seed: 16 },
    );
  });
});
