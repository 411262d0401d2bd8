import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/content/escape.ts';
import { darkdownToHtml } from '../../src/content/html-renderer.ts';
import { renderHtml } from '../../src/content/index.ts';
import { isInlineOnly, isPlainText } from '../../src/content/plain-text.ts';
import { plugin } from './helpers.ts';

/** Nested content skips the parser when isPlainText says no rule could apply; the parser must agree. */
describe('the plain-text fast path', () => {
  const sample = fc
    .array(
      fc.oneof(
        fc.constantFrom(
          '1.',
          '1)',
          '-',
          '+',
          '=',
          '#',
          ':',
          '//',
          'www.',
          'http',
          '@',
          '!',
          '.',
          ',',
          '(',
          ')',
          '"',
          "'",
        ),
        fc.constantFrom(' ', '  ', '\u00a0', '\u0000', 'é', '日本', 'a', 'Z', '9', '?', '/', '{', '}', '^'),
        fc.string({ maxLength: 4 }),
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join(''));

  it('only accepts text that markdown-it renders as one plain, escaped paragraph', () => {
    fc.assert(
      fc.property(sample, (text) => {
        if (!isPlainText(text) || text === '') return;
        expect(darkdownToHtml(text)).toBe(`<p>${escapeHtml(text)}</p>\n`);
      }),
      { numRuns: 3_000 },
    );
  });

  it('accepts ordinary cell text and refuses Markdown', () => {
    expect(isPlainText('The last part of the page URL, in lower case.')).toBe(true);
    expect(isPlainText('Café: 3 (three) — done?')).toBe(true);
    for (const text of [
      '*x*',
      '1. one',
      '- item',
      'see www.x.org',
      'a https://x',
      ' lead',
      'trail ',
      'a\nb',
      '%v%',
    ]) {
      expect(isPlainText(text)).toBe(false);
    }
  });
});

describe('the inline-only fast path', () => {
  const line = fc
    .array(
      fc.oneof(
        fc.constantFrom(
          '-',
          '+',
          '*',
          '_',
          '#',
          '>',
          '1.',
          '2)',
          '```',
          '~~~',
          '<b>',
          '<div>',
          '[a]:',
          '[^1]',
          '^[n]',
        ),
        fc.constantFrom(
          '$plugin[',
          '$inline[key,K]',
          '%v%',
          '[auto$](/d/p)',
          '`c`',
          '**b**',
          '=',
          '---',
          ' ',
          '\t',
        ),
        fc.constantFrom('x', 'é', '[l](/u)', '![i](/i.png)', 'https://x.test', 'www.x.org', 'a@b.co', '\\'),
      ),
      { minLength: 1, maxLength: 8 },
    )
    .map((parts) => parts.join(''));

  it('renders a line the same whether read inline-only or as a document', () => {
    const ctx = { variables: { v: 'V' } };
    fc.assert(
      fc.property(line, (text) => {
        if (!isInlineOnly(text)) return;
        // A trailing line break sends the same cell through the full parse.
        const table = (cell: string): string => renderHtml(plugin('table', { contents: [[cell]] }), ctx);
        expect(table(text)).toBe(table(`${text}\n`));
      }),
      { numRuns: 3_000 },
    );
  });

  it('refuses lines that start a block', () => {
    expect(isInlineOnly('**b** and `c` with [a](/l)')).toBe(true);
    for (const text of [
      '- x',
      '1. x',
      '# x',
      '> x',
      '```js',
      '<div>',
      '[a]: /u',
      '---',
      '* * *',
      '$plugin[{}]$',
      'a^[n]',
    ]) {
      expect(isInlineOnly(text)).toBe(false);
    }
  });
});
