import { describe, expect, it } from 'vitest';
import {
  autoLinkTargets,
  headingAnchor,
  renderContent,
  renderHtml,
  renderMarkdown,
  renderText,
} from '../../src/content/index.ts';
import { page, phpPlugin, plugin } from './helpers.ts';

describe('inline tokens', () => {
  it('renders badges with their type, defaulting to info', () => {
    expect(renderHtml('$inline[badge,New,success] $inline[badge,Old]')).toBe(
      '<p><span class="badge badge-success">New</span> <span class="badge badge-info">Old</span></p>\n',
    );
  });

  it('keeps a comma in badge text when the last part is not a type', () => {
    expect(renderText('$inline[badge,Hello, world]')).toBe('Hello, world');
    expect(renderText('$inline[badge,Hello, world,error]')).toBe('Hello, world');
  });

  it('renders icons, keys and glossary terms, escaping their text', () => {
    expect(renderHtml('$inline[icon,fas fa-truck text-success]')).toBe(
      '<p><i class="fas fa-truck text-success"></i></p>\n',
    );
    expect(renderHtml('$inline[key,<Ctrl>]')).toBe('<p><kbd>&lt;Ctrl&gt;</kbd></p>\n');
    expect(renderHtml('$inline[glossary,API & SDK]')).toBe(
      '<p><abbr class="glossary">API &amp; SDK</abbr></p>\n',
    );
  });

  it('strips anything but class-name characters from icon classes', () => {
    expect(renderHtml('$inline[icon,fa" onclick="x]')).toBe('<p><i class="fa onclickx"></i></p>\n');
  });

  it('leaves unknown or unclosed inline tokens as text', () => {
    expect(renderText('$inline[sparkle,x] and $inline[key,K')).toBe('$inline[sparkle,x] and $inline[key,K');
  });

  it('leaves inline tokens inside code as written', () => {
    expect(renderHtml('`$inline[key,K]`')).toBe('<p><code>$inline[key,K]</code></p>\n');
  });
});

describe('variables', () => {
  const ctx = {
    variables: { product: 'Quire', a: { b: 'nested', deep: { x: 3 } }, flag: false, empty: null },
  };

  it('resolves %name% and %a.b% in every format', () => {
    const source = 'Use %product% (%a.b%, %a.deep.x%, %flag%).';
    expect(renderHtml(source, ctx)).toBe('<p>Use Quire (nested, 3, false).</p>\n');
    expect(renderMarkdown(source, ctx)).toBe('Use Quire (nested, 3, false).');
    expect(renderText(source, ctx)).toBe('Use Quire (nested, 3, false).');
  });

  it('leaves a variable with no value as written', () => {
    const source = '%missing% %a% %a.nope% %empty% %product';
    expect(renderText(source, ctx)).toBe(source);
    expect(renderMarkdown(source, ctx)).toBe(source);
    expect(renderText('%product%')).toBe('%product%');
  });

  it('does not touch % inside code', () => {
    const source = '`%product%`\n\n```\n%product%\n```\n\n    %product%\n';
    expect(renderHtml(source, ctx)).toBe(
      '<p><code>%product%</code></p>\n<pre><code>%product%\n</code></pre>\n<pre><code>%product%\n</code></pre>\n',
    );
    expect(renderMarkdown(source, ctx)).toBe(source);
  });

  it('escapes a value in HTML and in Markdown', () => {
    const vars = { variables: { v: '<b>*x*</b>' } };
    expect(renderHtml('%v%', vars)).toBe('<p>&lt;b&gt;*x*&lt;/b&gt;</p>\n');
    expect(renderMarkdown('%v%', vars)).toBe('\\<b\\>\\*x\\*\\</b\\>');
  });

  it('resolves variables in plugin titles', () => {
    expect(renderText(plugin('callout', { type: 'info', title: 'About %product%', text: 'x' }), ctx)).toBe(
      'About Quire\nx',
    );
  });
});

describe('auto links', () => {
  const ctx = { pageTitles: new Map([['guides/setup', 'Setting up <fast>']]) };

  it('shows the target page title when known', () => {
    expect(renderHtml('See [auto$](/guides/setup#install).', ctx)).toBe(
      '<p>See <a href="/guides/setup#install">Setting up &lt;fast&gt;</a>.</p>\n',
    );
    expect(renderMarkdown('See [auto$](/guides/setup#install).', ctx)).toBe(
      'See [Setting up \\<fast\\>](/guides/setup#install).',
    );
    expect(renderText('See [auto$](/guides/setup).', ctx)).toBe('See Setting up <fast>.');
  });

  it('shows the page slug when the page is unknown', () => {
    expect(renderHtml('[auto$](/guides/missing-page)', ctx)).toBe(
      '<p><a href="/guides/missing-page">missing-page</a></p>\n',
    );
  });

  it('lists the auto link targets of a source, including inside plugin JSON', () => {
    const source = page(
      'A [auto$](/guides/setup#x) and [auto$](/guides/setup) and [auto$](/ref/cli).',
      JSON.stringify({ text: '[auto$](/faq/billing)' }).replace(/\//g, '\\/'),
      '[not auto](/x/y)',
    );
    expect(autoLinkTargets(source)).toEqual(['guides/setup', 'ref/cli', 'faq/billing']);
    const inner = phpPlugin('tabs', { tabs: [{ title: 't', content: '[auto$](/docs/café)' }] });
    const nested = phpPlugin('callout', { type: 'info', title: '', text: inner });
    expect(nested).toContain('(\\\\\\/docs\\\\\\/caf\\\\u00e9)');
    expect(autoLinkTargets(nested)).toEqual(['docs/café']);
    expect(renderText(nested, { pageTitles: new Map([['docs/café', 'Café']]) })).toBe('t\nCafé');
    expect(autoLinkTargets('nothing here')).toEqual([]);
  });
});

describe('asset images', () => {
  const source = page('![Logo](asset:42) ![Other](asset:99)', '<!-- asset:42=https://cdn.test/logo.png -->');

  it('resolves asset:ID from the trailing mapping comments and does not render them', () => {
    expect(renderHtml(source)).toBe(
      '<p><img src="https://cdn.test/logo.png" alt="Logo" /> <img alt="Other" /></p>\n',
    );
    expect(renderMarkdown(source)).toBe('![Logo](https://cdn.test/logo.png) ![Other](asset:99)\n');
    expect(renderText(source)).toBe('Logo Other');
  });

  it('resolves asset URLs in image plugins', () => {
    const withPlugin = page(
      plugin('image', { url: 'asset:42', mode: 'full', caption: 'c' }),
      '<!-- asset:42=https://cdn.test/l.png -->',
    );
    expect(renderHtml(withPlugin)).toContain('<img src="https://cdn.test/l.png" alt="c" />');
    expect(renderMarkdown(withPlugin)).toBe('![c](https://cdn.test/l.png)\n');
  });

  it('reads only the trailing comments: the same text inside the page is content', () => {
    const inCode = '```\n<!-- asset:1=https://x.test/a.png -->\n```\n\n![a](asset:1)\n';
    expect(renderHtml(inCode)).toContain('<img alt="a" />');
    expect(renderMarkdown(inCode)).toBe(inCode);
  });
});

describe('renderContent', () => {
  it('returns darkdown byte for byte and keeps null', () => {
    const source = '\uFEFF# x\r\n\r\n$plugin[{"type":"mystery"}]$\r\n%v%\t\u0000 <!-- asset:1=https://x -->';
    expect(renderContent(source, 'darkdown', { variables: { v: 'X' } })).toBe(source);
    expect(renderContent(null, 'darkdown')).toBeNull();
    expect(renderContent(null, 'html')).toBeNull();
    expect(renderContent(null, 'markdown')).toBeNull();
    expect(renderContent(null, 'text')).toBeNull();
  });

  it('dispatches to the renderer for each format', () => {
    expect(renderContent('*a*', 'html')).toBe('<p><em>a</em></p>\n');
    expect(renderContent('*a*', 'markdown')).toBe('*a*');
    expect(renderContent('*a*', 'text')).toBe('a');
  });
});

describe('headingAnchor', () => {
  it.each([
    ['Getting Started', 'getting-started'],
    ['  --Hello,   World!--  ', 'hello-world'],
    ['Café & Crème 2.0', 'café-crème-2-0'],
    ['日本語 テキスト', '日本語-テキスト'],
    ['***', ''],
  ])('%j → %j', (text, anchor) => {
    expect(headingAnchor(text)).toBe(anchor);
  });
});
