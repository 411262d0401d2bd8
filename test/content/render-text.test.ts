import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/content/index.ts';
import { page, plugin } from './helpers.ts';

describe('renderText', () => {
  it('gives the text of Markdown blocks, one line per block element', () => {
    const text = renderText(
      page('# Title', 'Some *emphasis* and `code`\nwrapped.', '- a\n- b', '> quoted', '---'),
    );
    expect(text).toBe('Title\n\nSome emphasis and code wrapped.\n\na\nb\n\nquoted');
  });

  it('separates GFM table cells by tabs and rows by lines', () => {
    expect(renderText('| a | b |\n|---|---|\n| 1 | 2 |\n')).toBe('a\tb\n1\t2');
  });

  it('renders a callout as its title line then its text', () => {
    const source = plugin('callout', { type: 'info', title: 'Note', text: '- one\n- two\n\n```\ncode\n```' });
    expect(renderText(source)).toBe('Note\none\ntwo\n\ncode');
  });

  it('gives the code of code blocks and tabs, separated by a blank line', () => {
    expect(renderText(plugin('code-block', { languageBlocks: [{ language: 'js', code: 'a()\n' }] }))).toBe(
      'a()',
    );
    const tabs = plugin('code-block', {
      languageBlocks: [
        { language: 'js', code: 'a()' },
        { language: 'py', code: 'b()' },
      ],
    });
    expect(renderText(tabs)).toBe('a()\n\nb()');
  });

  it('gives an image its caption and a video nothing', () => {
    expect(renderText(plugin('image', { url: '/a.png', mode: 'full', caption: 'The **big** one' }))).toBe(
      'The big one',
    );
    expect(renderText(page('x', plugin('video', { provider: 'youtube', videoId: 'v' }), 'y'))).toBe('x\n\ny');
  });

  it('strips tags from custom HTML, dropping scripts', () => {
    const source = plugin('custom-html', {
      contents: '<p>Hello&nbsp;<b>world</b> &amp; co</p><script>x()</script>',
    });
    expect(renderText(source)).toBe('Hello world & co');
  });

  it('separates plugin table cells by tabs, rows by lines, cells as text', () => {
    const source = plugin('table', {
      contents: [
        ['**A**', 'B'],
        ['- x\n- y', '`c`'],
      ],
    });
    expect(renderText(source)).toBe('A\tB\nx y\tc');
  });

  it('gives tabs, accordions and cards their titles and contents', () => {
    expect(
      renderText(
        plugin('tabs', {
          tabs: [
            { title: 'One', content: '*x*' },
            { title: 'Two', content: 'y' },
          ],
        }),
      ),
    ).toBe('One\nx\n\nTwo\ny');
    expect(renderText(plugin('accordion', { title: 'More', open: true, content: 'Hidden' }))).toBe(
      'More\nHidden',
    );
    expect(
      renderText(
        plugin('cards', {
          cards: [
            { title: 'A', text: 'first', link: '/a' },
            { title: 'B', text: '', link: '' },
          ],
        }),
      ),
    ).toBe('A\nfirst\n\nB');
  });

  it('gives synced blocks and unknown plugins nothing', () => {
    expect(
      renderText(page('a', plugin('synced-block', { syncedBlockId: 'x' }), plugin('nope', {}), 'b')),
    ).toBe('a\n\nb');
  });

  it('gives inline tokens their text: badge text, no icon, key, term', () => {
    const source =
      'A $inline[badge,Beta,info] B $inline[icon,fas fa-x] C $inline[key,Esc] D $inline[glossary,SLA]';
    expect(renderText(source)).toBe('A Beta B  C Esc D SLA');
  });

  it('marks task list items', () => {
    expect(renderText('- [x] done\n- [ ] open\n')).toBe('[x] done\n[ ] open');
  });
});
