import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import footnote from 'markdown-it-footnote';
import { describe, expect, it } from 'vitest';
import { renderHtmlInPlace, renderHtmlWholeDocument } from '../src/content/html-renderer.ts';
import { renderMarkdown } from '../src/content/index.ts';
import { createWorld } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

/**
 * Readers of Markdown output at their most trusting: they render the HTML in it and follow any URL
 * (markdown-it with its URL check off), and hand destinations on without percent-encoding them. One
 * reads GFM with footnotes; one reads plain CommonMark, so tables and footnotes are paragraphs to it.
 */
const readers = [
  new MarkdownIt({ html: true, linkify: true }).use(footnote),
  new MarkdownIt('commonmark', { html: true }),
];
for (const reader of readers) {
  reader.validateLink = () => true;
  reader.normalizeLink = (url: string) => url;
}

const NAMED_ENTITIES: Record<string, string> = {
  colon: ':',
  tab: '\t',
  newline: '\n',
  amp: '&',
  quot: '"',
  apos: "'",
  lt: '<',
  gt: '>',
};

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&([a-z]+);/gi, (whole, name: string) => NAMED_ENTITIES[name.toLowerCase()] ?? whole);
}

const UNSAFE_ELEMENT =
  /<(?:script|style|svg|math|object|embed|form|button|meta|base|link|body|frame|frameset|textarea|xmp|noscript|template)\b/i;
const TAG = /<([a-zA-Z][\w:-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*\/?>/g;
const ATTRIBUTE = /([^\s=>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'data',
  'xlink:href',
  'poster',
  'background',
]);
const VIDEO_EMBEDS = /^https:\/\/(?:www\.youtube\.com|player\.vimeo\.com|www\.loom\.com)\//;

/**
 * The Markdown, as those readers render it, runs no script: no script-bearing elements, no event
 * handlers, no styles but table alignment, no script or data URLs (in any encoding, with the controls
 * and spaces browsers skip), iframes only from the video embed hosts.
 */
function expectSafeForReaders(markdown: string): void {
  for (const reader of readers) expectSafeHtml(reader.render(markdown));
}

function expectSafeHtml(html: string): void {
  expect(html, html).not.toMatch(UNSAFE_ELEMENT);
  for (const [, name = '', attributes = ''] of html.matchAll(TAG)) {
    const element = name.toLowerCase();
    for (const [, rawName = '', v1, v2, v3] of attributes.matchAll(ATTRIBUTE)) {
      const attribute = rawName.toLowerCase();
      const value = decodeEntities(v1 ?? v2 ?? v3 ?? '');
      expect(attribute, html).not.toMatch(/^on|^srcdoc$/);
      if (attribute === 'style') expect(value, html).toMatch(/^text-align:\s*(?:left|right|center);?$/);
      if (!URL_ATTRIBUTES.has(attribute)) continue;
      // eslint-disable-next-line no-control-regex -- browsers skip these inside a URL's scheme
      const url = value.replace(/%(?:[01][0-9a-f]|20|7f)|[\x00-\x20\x7f]/gi, '').toLowerCase();
      expect(url, html).not.toMatch(/^(?:javascript|vbscript|livescript|file):/);
      if (url.startsWith('data:')) {
        expect(`${element} ${attribute} ${url}`, html).toMatch(/^img src data:image\/(?:png|gif|jpeg|webp);/);
      }
      if (element === 'iframe') expect(value, html).toMatch(VIDEO_EMBEDS);
    }
  }
}

function plugin(type: string, data: unknown): string {
  return `$plugin[${JSON.stringify({ type, data })}]$`;
}

/** Creates pages through the API in a new project and reads each back with format=markdown. */
async function markdownOf(contents: readonly string[]): Promise<string[]> {
  const world = await createWorld(t.deps);
  const api = client(t.app, world.key);
  const out: string[] = [];
  for (const [i, content] of contents.entries()) {
    const created = await api.post(`/documentation/${world.documentation.id}/page`, {
      title: `Page ${i}`,
      content,
    });
    expect(created.statusCode).toBe(200);
    const read = await api.get(`/page/${created.json().id as number}?format=markdown`);
    expect(read.statusCode).toBe(200);
    out.push(read.json().contentDraft as string);
  }
  return out;
}

/** Raw HTML (OWASP filter-evasion style) and what the allowlist leaves of it in Markdown output. */
const HTML_VECTORS: ReadonlyArray<[string, string]> = [
  ['<script>alert(1)</script>', ''],
  ['<SCRIPT SRC=https://evil.test/x.js></SCRIPT>', ''],
  ['<img src=x onerror=alert(1)>', '<img src="x" />'],
  ['<IMG SRC=x OnError="alert(1)">', '<img src="x" />'],
  ['<svg onload=alert(1)>', ''],
  ['<svg><script>alert(1)</script></svg>', ''],
  ['<iframe src="javascript:alert(1)"></iframe>', ''],
  ['<iframe src="https://evil.test/"></iframe>', ''],
  ['<iframe srcdoc="<script>alert(1)</script>"></iframe>', ''],
  ['<a href="javascript:alert(1)">a</a>', '<a>a</a>'],
  ['<a href="JaVaScRiPt:alert(1)">a</a>', '<a>a</a>'],
  ['<a href="java&#x09;script:alert(1)">a</a>', '<a>a</a>'],
  ['<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">a</a>', '<a>a</a>'],
  ['<a href="javascript&colon;alert(1)">a</a>', '<a>a</a>'],
  ["<a href=' &#14; javascript:alert(1)'>a</a>", '<a>a</a>'],
  ['<a href="vbscript:msgbox(1)">a</a>', '<a>a</a>'],
  ['<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">a</a>', '<a>a</a>'],
  ['<img src="javascript:alert(1)">', '<img />'],
  ['<div style="background:url(javascript:alert(1))">d</div>', '<div>d</div>'],
  ['<span style="width: expression(alert(1))">s</span>', '<span>s</span>'],
  ['<style>@import "https://evil.test/x.css";</style>', ''],
  ['<details open ontoggle=alert(1)>', '<details open>'],
  ['<body onload=alert(1)>', ''],
  ['<input autofocus onfocus=alert(1)>', '<input />'],
  ['<video src=x onerror=alert(1)></video>', '<video src="x"></video>'],
  ['<object data="javascript:alert(1)"></object>', ''],
  ['<embed src="javascript:alert(1)">', ''],
  ['<form action="javascript:alert(1)"><button>b</button></form>', 'b'],
  ['<math><a xlink:href="javascript:alert(1)">m</a></math>', '<a>m</a>'],
  ['<meta http-equiv="refresh" content="0;url=javascript:alert(1)">', ''],
  ['<base href="javascript:alert(1)//">', ''],
  ['<link rel="stylesheet" href="javascript:alert(1)">', ''],
  ['<!--><img src=x onerror=alert(1)>-->', '<img src="x" />-->'],
  ['<scr<script>ipt>alert(1)</script>', '<scr'],
];

/**
 * Links to script and data URLs, obfuscated the usual ways, and how Markdown output shows them: as the
 * text HTML output shows, the opening bracket (or angle bracket) written as a character reference.
 */
const LINK_VECTORS: ReadonlyArray<[string, string]> = [
  ['[a](javascript:alert(1))', '&#91;a](javascript:alert(1))'],
  ['[a](JAVASCRIPT:alert(1))', '&#91;a](JAVASCRIPT:alert(1))'],
  ['[a](java&#x09;script:alert(1))', '&#91;a](java&#x09;script:alert(1))'],
  ['[a](java&#x0A;script:alert(1))', '&#91;a](java&#x0A;script:alert(1))'],
  ['[a](&#x6A;avascript:alert(1))', '&#91;a](&#x6A;avascript:alert(1))'],
  ['[a](javascript&colon;alert(1))', '&#91;a](javascript&colon;alert(1))'],
  ['[a](java%09script:alert(1))', '&#91;a](java%09script:alert(1))'],
  ['[a](%20javascript:alert(1))', '&#91;a](%20javascript:alert(1))'],
  ['[a](<javascript:alert(1)>)', '&#91;a](&lt;javascript:alert(1)>)'],
  ['[a]( javascript:alert(1) "title")', '&#91;a]( javascript:alert(1) "title")'],
  ['[a](vbscript:msgbox(1))', '&#91;a](vbscript:msgbox(1))'],
  ['[a](file:///etc/passwd)', '&#91;a](file:///etc/passwd)'],
  [
    '[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '&#91;a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  ],
  ['![i](javascript:alert(1))', '!&#91;i](javascript:alert(1))'],
  [
    '![i](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
    '!&#91;i](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  ],
  ['<javascript:alert(1)>', '&lt;javascript:alert(1)>'],
  ['<JaVaScRiPt:alert(1)>', '&lt;JaVaScRiPt:alert(1)>'],
  ['<vbscript:msgbox(1)>', '&lt;vbscript:msgbox(1)>'],
  ['[a [b](javascript:alert(1))](https://ok.test)', '&#91;a &#91;b](javascript:alert(1))](https://ok.test)'],
];

/**
 * Inline Darkdown that must come back exactly as written: code spans holding HTML (text there), allowed
 * HTML, comments that hide nothing, a `<` that starts no tag, and safe links of every kind.
 */
const BENIGN_INLINE = [
  'Keep `<script>alert(1)</script>` and ``<img src=x onerror=alert(1)>`` as code; 3 < 4 & 5 <6.',
  '<b>bold</b> <kbd>Ctrl</kbd>+<kbd>C</kbd> <span class="note">n</span> line<br>break <img src="/a.png" alt="A" width="20"> <!-- note -->',
  '[docs](https://example.com/docs "Docs") [rel](/guides/x#y) [mail](mailto:a@example.com) <https://example.com> ![px](data:image/png;base64,iVBORw0KGgo=)',
].join(' ');

/** A construct of the page format that holds inline Markdown, and what Markdown output makes of it. */
interface Context {
  name: string;
  write(inline: string, i: number): string;
  read(inline: string, i: number): string;
}

function quoted(markdown: string): string {
  return markdown
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

const CONTEXTS: Context[] = [
  { name: 'a paragraph', write: (s) => `Text ${s} end.`, read: (s) => `Text ${s} end.` },
  { name: 'a heading', write: (s) => `## Title ${s}`, read: (s) => `## Title ${s}` },
  { name: 'a list item', write: (s) => `- item ${s}\n- next`, read: (s) => `- item ${s}\n- next` },
  { name: 'a task list item', write: (s) => `- [ ] task ${s}`, read: (s) => `- [ ] task ${s}` },
  { name: 'a blockquote', write: (s) => `> quoted ${s}`, read: (s) => `> quoted ${s}` },
  {
    name: 'a footnote',
    write: (s, i) => `Note[^n${i}].\n\n[^n${i}]: ${s}`,
    read: (s, i) => `Note[^n${i}].\n\n[^n${i}]: ${s}`,
  },
  {
    name: 'an inline footnote',
    write: (s) => `Note^[${s}].`,
    // Once a link inside is text, the `[` of `^[` pairs with its `]`: a reader without footnotes would
    // read a link from there to the refused URL, so that `[` is made text too (not when the destination
    // it would read starts with `&lt;`, which is no scheme).
    read: (s) => (s.includes('&#91;') && !s.includes('](&lt;') ? `Note^&#91;${s}].` : `Note^[${s}].`),
  },
  {
    name: 'a GFM table cell',
    write: (s) => `| a | b |\n|---|---|\n| ${s} | x |`,
    read: (s) => `| a | b |\n|---|---|\n| ${s} | x |`,
  },
  {
    name: 'a callout',
    write: (s) => plugin('callout', { type: 'warning', title: 'Careful', text: `Body ${s}` }),
    read: (s) => quoted(`[!WARNING]\n**Careful**\n\nBody ${s}`.trim()),
  },
  {
    name: 'a table plugin cell',
    write: (s) => plugin('table', { contents: [['Head'], [`Cell ${s}`]] }),
    read: (s) => `| Head |\n| --- |\n| ${`Cell ${s}`.trim()} |`,
  },
  {
    name: 'a tab',
    write: (s) => plugin('tabs', { tabs: [{ title: 'One', content: `Tab ${s}` }] }),
    read: (s) => `**One**\n\n${`Tab ${s}`.trim()}`,
  },
  {
    name: 'an accordion',
    write: (s) => plugin('accordion', { title: 'More', open: false, content: `Hidden ${s}` }),
    read: (s) => `**More**\n\n${`Hidden ${s}`.trim()}`,
  },
  {
    name: 'a callout inside a tab',
    write: (s) =>
      plugin('tabs', {
        tabs: [{ title: 'T', content: plugin('callout', { type: 'info', title: '', text: `In ${s}` }) }],
      }),
    read: (s) => `**T**\n\n${quoted(`[!NOTE]\nIn ${s}`.trim())}`,
  },
];

/** One page per vector list: each vector in its own instance of the construct, blank lines between. */
function page(context: Context, inlines: readonly string[], as: 'write' | 'read'): string {
  return inlines.map((s, i) => context[as](s, i)).join('\n\n');
}

describe('format=markdown: HTML written in a page goes through the allowlist', () => {
  it.each(CONTEXTS)(
    'in $name: script, handlers, script URLs and styles go; the rest stays',
    async (context) => {
      const written = [BENIGN_INLINE, ...HTML_VECTORS.map(([vector]) => `x ${vector} y`)];
      const expected = [BENIGN_INLINE, ...HTML_VECTORS.map(([, clean]) => `x ${clean} y`)];
      const [markdown = ''] = await markdownOf([page(context, written, 'write')]);
      expect(markdown).toBe(page(context, expected, 'read'));
      expectSafeForReaders(markdown);
    },
  );

  it('sanitises HTML blocks, keeping allowed blocks and code byte for byte', async () => {
    const blocks = [
      '<div class="note">\n<b>Allowed</b> <kbd>K</kbd>\n</div>',
      '<details>\n<summary>More</summary>\n<!-- a note -->\nInside & out.\n</details>',
      '```html\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```',
      '    <iframe src="https://evil.test/"></iframe>',
      '<script>\nalert(1)\n</script>',
      '<style>\nbody { display: none }\n</style>',
      '<div onclick="alert(1)">\n<img src=x onerror=alert(1)>\n</div>',
      '<table><tr><td background="javascript:alert(1)" style="text-align:left">x</td></tr></table>',
      '<iframe src="https://evil.test/"></iframe>',
      '<svg onload=alert(1)>\n<circle r="1"/>',
      '<textarea><img src=x onerror=alert(1)></textarea>',
      '<!--\n--><img src=x onerror=alert(1)>',
      '<?php echo 1; ?><img src=x onerror=alert(1)>',
      '<a href="javascript:alert(1)">\nlink\n</a>',
    ];
    const [markdown = ''] = await markdownOf([blocks.join('\n\n')]);
    expect(markdown).toBe(
      [
        '<div class="note">\n<b>Allowed</b> <kbd>K</kbd>\n</div>',
        '<details>\n<summary>More</summary>\n<!-- a note -->\nInside & out.\n</details>',
        '```html\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```',
        '    <iframe src="https://evil.test/"></iframe>',
        '',
        '',
        '<div>\n<img src="x" />\n</div>',
        '<table><tr><td style="text-align:left">x</td></tr></table>',
        '',
        '',
        '',
        '<!--\n--><img src="x" />',
        '<img src="x" />',
        '<a>\nlink\n</a>',
      ].join('\n\n'),
    );
    expectSafeForReaders(markdown);
  });

  it('sanitises indented HTML blocks and those inside quotes, lists, callouts, tabs and table cells', async () => {
    const block = '<div onclick="alert(1)">\n<b>ok</b> <img src=x onerror=alert(1)>\n</div>';
    const indented = (prefix: string): string => block.replace(/\n/g, `\n${prefix}`);
    const contents = [
      `   ${indented('   ')}`,
      `> ${indented('> ')}`,
      `- ${indented('  ')}\n- next`,
      plugin('callout', { type: 'error', title: '', text: `${block}\n\n\`<script>\`` }),
      plugin('tabs', { tabs: [{ title: 'T', content: block }] }),
      plugin('accordion', { title: 'A', open: true, content: block }),
      plugin('table', { contents: [['H'], [block], ['    <img src=x onerror=alert(1)>']] }),
    ];
    const clean = '<div>\n<b>ok</b> <img src="x" />\n</div>';
    expect(await markdownOf(contents)).toEqual([
      `   ${clean.replace(/\n/g, '\n   ')}`,
      `> ${clean.replace(/\n/g, '\n> ')}`,
      `- ${clean.replace(/\n/g, '\n  ')}\n- next`,
      quoted(`[!CAUTION]\n${clean}\n\n\`<script>\``),
      `**T**\n\n${clean}`,
      `**A**\n\n${clean}`,
      // On one line, an indented code block's text is inline HTML: it is sanitised there as well.
      '| H |\n| --- |\n| <div><br><b>ok</b> <img src="x" /><br></div> |\n| <img src="x" /> |',
    ]);
  });

  it('keeps code spans and code blocks holding HTML exactly as written, in every construct', async () => {
    const code =
      'Use `<script>alert(1)</script>`:\n\n```html\n<img src=x onerror=alert(1)>\n```\n\n    <svg onload=alert(1)>';
    const contents = [
      `${code}\n\n<img src=x onerror=alert(1)>`,
      plugin('callout', { type: 'info', title: 'C', text: `${code}\n\n<img src=x onerror=alert(1)>` }),
      plugin('tabs', { tabs: [{ title: 'T', content: `${code}\n\n<img src=x onerror=alert(1)>` }] }),
      plugin('code-block', { languageBlocks: [{ language: 'html', code: '<script>alert(1)</script>' }] }),
    ];
    expect(await markdownOf(contents)).toEqual([
      `${code}\n\n<img src="x" />`,
      quoted(`[!NOTE]\n**C**\n\n${code}\n\n<img src="x" />`),
      `**T**\n\n${code}\n\n<img src="x" />`,
      '```html\n<script>alert(1)</script>\n```',
    ]);
  });
});

describe('format=markdown: links to script URLs are text, as in HTML output', () => {
  it.each(CONTEXTS)('in $name: every obfuscation, while safe links stay', async (context) => {
    const written = [BENIGN_INLINE, ...LINK_VECTORS.map(([vector]) => `x ${vector} y`)];
    const expected = [BENIGN_INLINE, ...LINK_VECTORS.map(([, clean]) => `x ${clean} y`)];
    const [markdown = ''] = await markdownOf([page(context, written, 'write')]);
    expect(markdown).toBe(page(context, expected, 'read'));
    expectSafeForReaders(markdown);
  });

  it('escapes each of several such links in one paragraph once, and sanitises repeated tags alike', async () => {
    const [markdown = ''] = await markdownOf([
      '[a](javascript:x) [a](javascript:x) ![a](javascript:x) <javascript:x> <javascript:x> [b](/ok) <b onclick=x>1</b> <b onclick=x>2</b>',
    ]);
    expect(markdown).toBe(
      '&#91;a](javascript:x) &#91;a](javascript:x) !&#91;a](javascript:x) &lt;javascript:x> &lt;javascript:x> [b](/ok) <b>1</b> <b>2</b>',
    );
    expectSafeForReaders(markdown);
  });

  it('escapes links nested many levels deep, each a link once the one inside it is text', () => {
    const levels = Array.from({ length: 20 }, (_, i) => `](javascript:alert(${i}))`);
    const source = `${'['.repeat(20)}a${levels.join('')} <b>b</b>`;
    const markdown = renderMarkdown(source);
    expectSafeForReaders(markdown);
    // Every `[` is a reference; past a few levels `<` is too, the last resort: all still shows as written.
    expect(markdown.startsWith('&#91;'.repeat(20))).toBe(true);
    expect(markdown.replace(/&#91;/g, '[').replace(/&lt;/g, '<')).toBe(source);
  });

  it('escapes reference definitions to script URLs, at the top level and nested', async () => {
    const contents = [
      '[r] and [s]\n\n[r]: javascript:alert(1)\n\n[s]: <java&#x09;script:alert(1)> "t"\n\n[ok]: https://example.com',
      '> [r]\n>\n> [r]: JAVASCRIPT:alert(1)',
      '- [r]\n\n  [r]: vbscript:msgbox(1)',
      plugin('callout', { type: 'info', title: '', text: '[r]\n\n[r]: javascript:alert(1)' }),
      // markdown-it follows a reference when the inline destination is refused; the `(` is made text.
      '[a](javascript:alert(1)) [a]\n\n[a]: https://example.com',
    ];
    const markdown = await markdownOf(contents);
    expect(markdown).toEqual([
      '[r] and [s]\n\n&#91;r]: javascript:alert(1)\n\n&#91;s]: <java&#x09;script:alert(1)> "t"\n\n[ok]: https://example.com',
      '> [r]\n>\n> &#91;r]: JAVASCRIPT:alert(1)',
      '- [r]\n\n  &#91;r]: vbscript:msgbox(1)',
      '> [!NOTE]\n> [r]\n>\n> &#91;r]: javascript:alert(1)',
      '[a]&#40;javascript:alert(1)) [a]\n\n[a]: https://example.com',
    ]);
    for (const m of markdown) expectSafeForReaders(m);
  });

  it('does not resolve an asset to a script URL, and keeps safe URLs', async () => {
    const [markdown = ''] = await markdownOf([
      '![a](asset:1) ![b](asset:2) [c](https://example.com)\n\n<!-- asset:1=javascript:alert(1) -->\n<!-- asset:2=https://cdn.test/b.png -->\n',
    ]);
    expect(markdown).toBe('![a](asset:1) ![b](https://cdn.test/b.png) [c](https://example.com)\n');
    expectSafeForReaders(markdown);
  });
});

describe('format=markdown: HTML markdown-it leaves out of its tokens is sanitised all the same', () => {
  it('in footnotes defined twice or never referred to, and inline footnotes inside inline footnotes', async () => {
    const [markdown = ''] = await markdownOf([
      'Text[^1] and^[outer ^[inner <img src=x onerror=alert(1)>] <i onclick=x>i</i>].\n\n' +
        '[^1]: first <svg onload=alert(1)>\n\n[^1]: second <b>kept</b>\n\n[^unused]: <img src=y onerror=alert(2)> [a](javascript:alert(3))',
    ]);
    expect(markdown).toBe(
      'Text[^1] and^[outer ^[inner <img src="x" />] <i>i</i>].\n\n' +
        '[^1]: first \n\n[^1]: second <b>kept</b>\n\n[^unused]: <img src="y" /> &#91;a](javascript:alert(3))',
    );
    expectSafeForReaders(markdown);
  });

  it('in table cells past the header, which GFM ignores and other readers show', async () => {
    const [markdown = ''] = await markdownOf([
      '| a |\n|---|\n| 1 | <img src=x onerror=alert(1)> | [l](javascript:alert(1)) | `<b onclick=x>` |\n\n' +
        '> | a | b |\n> |---|---|\n> | 1 | 2 | <script>alert(1)</script> \\| <b>ok</b> |',
    ]);
    expect(markdown).toBe(
      '| a |\n|---|\n| 1 | <img src="x" /> | &#91;l](javascript:alert(1)) | `<b onclick=x>` |\n\n' +
        '> | a | b |\n> |---|---|\n> | 1 | 2 |  \\| <b>ok</b> |',
    );
    expectSafeForReaders(markdown);
  });
});

describe('format=markdown: what splicing puts side by side is made safe too', () => {
  it('keeps inserted text (badges, variables) from completing a tag or a link', async () => {
    const world = await createWorld(t.deps);
    await t.deps.database.db
      .updateTable('projects')
      .set({
        variables: JSON.stringify({ tag: 'img src=x onerror=alert(1)', paren: '(javascript:alert(1))' }),
      })
      .where('id', '=', world.project.id)
      .execute();
    const api = client(t.app, world.key);
    const content =
      'A <$inline[badge,img src=x onerror=alert(1)]> b <%tag%> c [x]$inline[glossary,(javascript:alert(1))] d [y]%paren% e $inline[badge,New] [ok](/ok).';
    const created = await api.post(`/documentation/${world.documentation.id}/page`, { title: 'P', content });
    const markdown = (await api.get(`/page/${created.json().id as number}?format=markdown`)).json()
      .contentDraft as string;
    // The `<` before an insertion is escaped: the text reads as the HTML output shows it, no tag.
    expect(markdown).toBe(
      'A \\<img src=x onerror=alert(1)> b \\<img src=x onerror=alert(1)> c &#91;x](javascript:alert(1)) d &#91;y](javascript:alert(1)) e New [ok](/ok).',
    );
    expectSafeForReaders(markdown);
  });

  it('makes safe what removing a tag joins together', async () => {
    const [markdown = ''] = await markdownOf([
      '[a]<x-y>(javascript:alert(1))\n\n<x-widget data-a="1">\n[b](javascript:alert(1)) and <i>kept</i>\n\nafter',
    ]);
    expect(markdown).toBe(
      '&#91;a](javascript:alert(1))\n\n&#91;b](javascript:alert(1)) and <i>kept</i>\n\nafter',
    );
    expectSafeForReaders(markdown);
  });

  it('treats the text of custom HTML and of a plugin that does not parse as Markdown a reader sees', async () => {
    const [custom = '', broken = ''] = await markdownOf([
      plugin('custom-html', { contents: 'Read [this](javascript:alert(1)) <b onclick="x()">now</b>' }),
      'Before\n\n$plugin[{"type": oops <img src=x onerror=alert(1)> [z](javascript:alert(1))]$\n\nAfter',
    ]);
    expect(custom).toBe('Read &#91;this](javascript:alert(1)) <b>now</b>');
    // Once `[z` is text, `[{"type": …&#91;z](javascript:…)` is a link to a reader: its `[` is made text in turn.
    expect(broken).toBe(
      'Before\n\n$plugin&#91;{"type": oops <img src="x" /> &#91;z](javascript:alert(1))]$\n\nAfter',
    );
    expectSafeForReaders(custom);
    expectSafeForReaders(broken);
  });
});

describe('renderMarkdown: property', () => {
  /** Markdown and Darkdown pieces, safe and unsafe, in every container. */
  const PIECES = [
    ...HTML_VECTORS.map(([vector]) => vector),
    ...LINK_VECTORS.map(([vector]) => vector),
    '[r]: javascript:alert(1)',
    '[r]',
    '<div>',
    '</div>',
    '<b>',
    '`',
    '```',
    '    ',
    '> ',
    '- ',
    '| a |',
    '|---|',
    '[',
    ']',
    '(',
    ')',
    '<',
    '>',
    '^[',
    '[^1]',
    '[^1]: ',
    '&#x09;',
    'javascript:',
    '$inline[badge,',
    '%v%',
    '\n',
    '\n\n',
    'text',
    ' ',
    plugin('callout', {
      type: 'info',
      title: 't',
      text: '<img src=x onerror=alert(1)> [a](javascript:alert(1))',
    }),
    plugin('table', { contents: [['a'], ['    <img src=x onerror=alert(1)>']] }),
    plugin('custom-html', { contents: '[x](javascript:alert(1))' }),
  ];

  it('gives Markdown no reader can be made to run script with, whatever the source', () => {
    const source = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(source, (darkdown) => {
        expectSafeForReaders(renderMarkdown(darkdown, { variables: { v: '<script' } }));
      }),
      { numRuns: 400 },
    );
  });
});

/** Raw HTML split over blocks and inline tokens: opened in one, closed in another, or never closed. */
const SPLIT_HTML = [
  '<div class="note">\n\n**Markdown** inside <img src=x onerror=alert(1)>\n\n</div>',
  '<details open ontoggle=alert(1)>\n<summary>More</summary>\n\n- a\n- b\n\n</details>',
  'a <span onclick=alert(1)>open in a paragraph\n\nnext paragraph</span>',
  '*a <b> b* c</b> <i>never closed',
  '<table><tr><td>\n\n*cell* <a href="javascript:alert(1)">x</a>\n\n</td></tr></table>',
  '</div></section><div>\n\nunclosed to the end',
  // only a whole-document sanitise follows these: raw text, and raw HTML closing the page's elements
  '<p align="center">\n\n![logo](javascript:alert(1))\n\n</p>',
  '<div>\n\n<script>\nalert(1)\n</script>\n\n</div>',
  '<textarea>\n\n</textarea><img src=x onerror=alert(1)>',
];

describe('format=html: raw HTML is sanitised where it stands', () => {
  async function htmlOf(content: string): Promise<string> {
    const world = await createWorld(t.deps);
    const api = client(t.app, world.key);
    const created = await api.post(`/documentation/${world.documentation.id}/page`, { title: 'P', content });
    expect(created.statusCode).toBe(200);
    const read = await api.get(`/page/${created.json().id as number}?format=html`);
    expect(read.statusCode).toBe(200);
    return read.json().contentDraft as string;
  }

  it.each(CONTEXTS)(
    'in $name: the same HTML as the whole page sanitised at once, and safe',
    async (context) => {
      const written = [BENIGN_INLINE, ...HTML_VECTORS.map(([vector]) => `x ${vector} y`), ...SPLIT_HTML];
      // A page of what the fast path takes (whether it does can depend on the rest of the page: a
      // `<div>` inside a loose list's paragraph closes it), and the page with everything.
      const inPlace: string[] = [];
      for (const s of written) {
        if (renderHtmlInPlace(page(context, [...inPlace, s], 'write')) !== null) inPlace.push(s);
      }
      // An iframe the allowlist drops takes what it encloses with it, which the fast path cannot
      // follow: a page holding one is sanitised as a whole.
      const dropsIframe = (vector: string) => vector.includes('<iframe');
      for (const s of written.filter(dropsIframe)) {
        expect(renderHtmlInPlace(page(context, [s], 'write')), s).toBeNull();
      }
      expect(inPlace.length).toBeGreaterThan(written.filter((s) => !dropsIframe(s)).length / 2);
      const fast = page(context, inPlace, 'write');
      for (const content of [fast, page(context, written, 'write')]) {
        const html = await htmlOf(content);
        expect(html).toBe(renderHtmlWholeDocument(content));
        expectSafeHtml(html);
      }
    },
  );

  it('sanitises tags of any length alike in html and markdown, the long ones (never memoised) each time', async () => {
    const long = 'w'.repeat(3000);
    const tags = [
      `<span title="${long}" onclick="alert(1)">`,
      `<a href="javascript:alert(1)" title="${long}">`,
      `<img src="x" onerror="alert(1)" alt="${long}">`,
    ];
    const content = ['Text', ...tags.flatMap((tag) => [`x ${tag}one</span> y`, `x ${tag}two</span> y`])].join(
      '\n\n',
    );
    for (let twice = 0; twice < 2; twice++) {
      const html = await htmlOf(content);
      expect(html).toBe(renderHtmlWholeDocument(content));
      expectSafeHtml(html);
      expect(html).toContain(long);
      expect(html).not.toMatch(/onclick|onerror|javascript:/i);
      const [markdown = ''] = await markdownOf([content]);
      expectSafeForReaders(markdown);
      expect(markdown).toContain(long);
      expect(markdown).not.toMatch(/onclick|onerror|javascript:/i);
    }
  });
});
