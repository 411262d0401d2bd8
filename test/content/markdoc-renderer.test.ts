import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/content/index.ts';
import { markdocToDarkdown } from '../../src/content/markdoc-to-darkdown.ts';
import { renderMarkdoc, type MarkdocLinks } from '../../src/content/markdoc-renderer.ts';
import { pageLinkResolver } from '../../src/modules/import/import.git-bodies.ts';
import { EVERY_CONSTRUCT } from '../helpers/rich-project.ts';
import { page, phpPlugin, plugin } from './helpers.ts';

// Darkdown → Markdoc (0032-markdoc-output.md), checked against the importer's own conversion: every
// construct the importer writes comes back from a Markdoc page byte for byte.

/** A version of three pages, one nested, as the Git layout files them. */
const LINKS: MarkdocLinks = {
  file: 'guide/tags.md',
  pages: new Map([
    ['guide/tags', 'guide/tags.md'],
    ['guide/setup', 'guide/setup.md'],
    ['guide/on-linux', 'guide/setup/on-linux.md'],
    ['api/auth', 'api/auth.md'],
  ]),
};
const ADDRESSES = new Map([...LINKS.pages].map(([address, file]) => [`v1/${file}`, `/${address}`]));

/** What `POST /import` of the Git format makes of a page file's body. */
function imported(markdoc: string): { body: string; unconverted: Map<string, number> } {
  return markdocToDarkdown(markdoc, { resolveLink: pageLinkResolver(`v1/${LINKS.file}`, ADDRESSES) });
}

const md = (source: string) => renderMarkdoc(source, LINKS);

/** Each construct the importer writes, and the Markdoc it is written as. */
const CASES: Array<[string, string, string]> = [
  [
    'callout',
    plugin('callout', { type: 'warning', title: 'Say "hi" \\ there', text: 'Mind **this**.\n\n- a\n- b' }),
    '{% callout type="warning" title="Say \\"hi\\" \\\\ there" %}\nMind **this**.\n\n- a\n- b\n{% /callout %}',
  ],
  [
    'callout, empty',
    plugin('callout', { type: 'info', title: '', text: '' }),
    '{% callout type="info" title="" %}\n{% /callout %}',
  ],
  [
    'image with caption and size',
    plugin('image', {
      url: 'https://img.test/a.png',
      mode: '300',
      width: 464,
      height: 20,
      caption: 'A *cap*',
    }),
    '{% image url="https://img.test/a.png" mode="300" width=464 height=20 %}\nA *cap*\n{% /image %}',
  ],
  [
    'image without caption',
    plugin('image', { url: 'asset:12', mode: 'responsive', caption: null }),
    '{% image url="asset:12" mode="responsive" /%}',
  ],
  [
    'custom-html',
    plugin('custom-html', { contents: '<div class="x">\n  <b>Hi</b>\n</div>' }),
    '{% html %}\n<div class="x">\n  <b>Hi</b>\n</div>\n{% /html %}',
  ],
  [
    'video',
    plugin('video', { provider: 'loom', videoId: 'abc' }),
    '{% video provider="loom" videoId="abc" /%}',
  ],
  ['synced-block', plugin('synced-block', { syncedBlockId: 'note-1' }), '{% synced id="note-1" /%}'],
  [
    'code-block, one entry',
    plugin('code-block', { languageBlocks: [{ language: 'js', code: 'let a = 1;\n\nlet b = 2;' }] }),
    '{% code %}\n```js\nlet a = 1;\n\nlet b = 2;\n```\n{% /code %}',
  ],
  [
    'code tabs with titles and no language',
    plugin('code-block', {
      languageBlocks: [
        { language: 'python', code: 'print("x")', title: 'main "py"' },
        { language: 'none', code: '```\nfenced\n```' },
      ],
    }),
    '{% code %}\n```python {% title="main \\"py\\"" %}\nprint("x")\n```\n\n````\n```\nfenced\n```\n````\n{% /code %}',
  ],
  [
    'tabs',
    plugin('tabs', {
      tabs: [
        { title: 'One', content: 'First, with $inline[badge,New,success].' },
        { title: 'Two', content: plugin('callout', { type: 'success', title: 'In', text: 'a tab' }) },
      ],
    }),
    '{% tabs %}\n{% tab title="One" %}\nFirst, with {% badge text="New" type="success" /%}.\n{% /tab %}\n{% tab title="Two" %}\n{% callout type="success" title="In" %}\na tab\n{% /callout %}\n{% /tab %}\n{% /tabs %}',
  ],
  [
    'cards, linking a page and elsewhere',
    plugin('cards', {
      view: 'list',
      cards: [
        { title: 'Setup', text: 'Read it', link: '/guide/setup#go' },
        { title: 'Out', text: '', link: 'https://example.test/' },
      ],
    }),
    '{% cards view="list" %}\n{% card title="Setup" text="Read it" link="setup.md#go" /%}\n{% card title="Out" text="" link="https://example.test/" /%}\n{% /cards %}',
  ],
  [
    'accordion',
    plugin('accordion', { title: 'Why?', open: true, content: 'Because.' }),
    '{% accordion title="Why?" open=true %}\nBecause.\n{% /accordion %}',
  ],
  [
    'accordion, closed',
    plugin('accordion', { title: 'More', open: false, content: '1. one\n2. two' }),
    '{% accordion title="More" open=false %}\n1. one\n2. two\n{% /accordion %}',
  ],
  [
    'table',
    plugin('table', {
      cols: 2,
      rows: 2,
      widths: [120, 0],
      contents: [
        ['Name', 'Type'],
        ['`id`', ''],
      ],
    }),
    '{% table %}\n{% row %}\n{% cell header=true colwidth=[120] %}\nName\n{% /cell %}\n{% cell header=true %}\nType\n{% /cell %}\n{% /row %}\n{% row %}\n{% cell %}\n`id`\n{% /cell %}\n{% cell %}\n{% /cell %}\n{% /row %}\n{% /table %}',
  ],
  [
    'inline tokens',
    'A $inline[badge,New,success] $inline[icon,fas fa-cog] $inline[key,Ctrl] $inline[glossary,CDN] but `$inline[key,x]`.',
    'A {% badge text="New" type="success" /%} {% icon classes="fas fa-cog" /%} {% key key="Ctrl" /%} {% glossary term="CDN" /%} but `$inline[key,x]`.',
  ],
  [
    'inline tokens as written: spaces and commas in their text',
    'A $inline[badge,New ,success] $inline[badge,a, b,warning] $inline[key, Ctrl ] $inline[icon,fa-solid fa-x].',
    'A {% badge text="New " type="success" /%} {% badge text="a, b" type="warning" /%} {% key key=" Ctrl " /%} {% icon classes="fa-solid fa-x" /%}.',
  ],
  [
    'page links, auto links and others',
    'See [setup](/guide/setup#steps), [auto$](/guide/on-linux), [auth](/api/auth "Auth"), [none](/guide/gone) and [out](https://x.test/a.md).',
    'See [setup](setup.md#steps), [auto$](setup/on-linux.md), [auth](../api/auth.md "Auth"), [none](/guide/gone) and [out](https://x.test/a.md).',
  ],
  [
    'variables and asset mappings',
    '![logo](asset:7) for %product% and %plan.name%.\n\n<!-- asset:7=https://cdn.test/logo.png -->',
    '![logo](asset:7) for %product% and %plan.name%.\n\n<!-- asset:7=https://cdn.test/logo.png -->',
  ],
  [
    'plain Markdown',
    '## Title\n\n> quote\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n- [ ] task\n\nText[^1]\n\n[^1]: Note.\n\n<div>html</div>\n\n    indented',
    '## Title\n\n> quote\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n- [ ] task\n\nText[^1]\n\n[^1]: Note.\n\n<div>html</div>\n\n    indented',
  ],
  [
    'plugins in lists and quotes keep their text',
    `- ${plugin('video', { provider: 'youtube', videoId: 'q' })}\n\n> ${plugin('synced-block', { syncedBlockId: 's' })}`,
    `- ${plugin('video', { provider: 'youtube', videoId: 'q' })}\n\n> ${plugin('synced-block', { syncedBlockId: 's' })}`,
  ],
  [
    'unknown plugin and broken JSON keep their text',
    `${plugin('poll', { question: 'Yes?' })}\n\n$plugin[{"type": "callout", ]$`,
    `${plugin('poll', { question: 'Yes?' })}\n\n$plugin[{"type": "callout", ]$`,
  ],
  [
    'a callout type the tag cannot say keeps its text',
    plugin('callout', { type: 'info', title: 'x', text: '' }).replace('"info"', '"note"'),
    plugin('callout', { type: 'info', title: 'x', text: '' }).replace('"info"', '"note"'),
  ],
];

describe('renderMarkdoc', () => {
  it.each(CASES)('%s', (_name, darkdown, markdoc) => {
    const source = page('Before.', darkdown, 'After.');
    const written = md(source);
    expect(written).toBe(page('Before.', markdoc, 'After.'));
    const back = imported(written);
    expect(back.body).toBe(source);
    expect([...back.unconverted.keys()]).toEqual([]);
  });

  it('writes every plugin of one page and reads it all back', () => {
    const source = CASES.map(([, darkdown]) => darkdown).join('\n\n');
    expect(imported(md(source)).body).toBe(source);
  });

  it('reads pretty-printed and PHP-escaped plugins as the same plugin, in its one-line form', () => {
    const data = { type: 'warning', title: 'Über /x', text: 'Text' };
    for (const source of [plugin('callout', data, true), phpPlugin('callout', data)]) {
      const written = md(source);
      expect(written).toBe('{% callout type="warning" title="Über /x" %}\nText\n{% /callout %}');
      expect(imported(written).body).toBe(plugin('callout', data));
    }
  });

  it('writes tokens in another form as what they mean, which comes back in the importer’s form', () => {
    const written = md('$inline[badge,Plain] $inline[Key,K]');
    expect(written).toBe('{% badge text="Plain" type="info" /%} {% key key="K" /%}');
    expect(imported(written).body).toBe('$inline[badge,Plain,info] $inline[key,K]');
  });

  it('escapes `{%` in text, which the importer keeps escaped (it reads the same)', () => {
    const written = md('Jinja writes {% if x %} here, `{% not in code %}`.');
    expect(written).toBe('Jinja writes \\{% if x %} here, `{% not in code %}`.');
    expect(imported(written).body).toBe(written);
  });

  it('keeps links and tags as they are without a page map', () => {
    expect(renderMarkdoc('[a](/guide/setup) $inline[key,K]')).toBe('[a](/guide/setup) {% key key="K" /%}');
  });

  it('round-trips any sequence of the constructs, with text between them', () => {
    const block = fc.oneof(
      fc.constantFrom(...CASES.map(([, darkdown]) => darkdown)),
      fc.stringMatching(/^[A-Za-z][A-Za-z ,.*_]{0,30}$/),
    );
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 6 }), (blocks) => {
        const source = blocks.join('\n\n');
        expect(imported(md(source)).body).toBe(source);
      }),
      { numRuns: 60 },
    );
  });

  it('reads the rich fixture page back to what renders the same', () => {
    // Its plugins are pretty-printed with PHP escapes: they come back on one line, the same data.
    const back = imported(md(EVERY_CONSTRUCT)).body;
    expect(renderHtml(back)).toBe(renderHtml(EVERY_CONSTRUCT));
  });
});
