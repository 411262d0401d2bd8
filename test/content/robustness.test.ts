import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  extractSections,
  renderHtml,
  renderMarkdown,
  renderText,
  type RenderContext,
} from '../../src/content/index.ts';
import { featurePage, featurePageContext } from '../../bench/fixtures/feature-page.ts';
import { plugin } from './helpers.ts';

const ctx: RenderContext = {
  variables: { v: 'value', a: { b: '<b>x</b>' } },
  pageTitles: new Map([
    ['a', 'A'],
    ['doc/page', 'Page'],
  ]),
};

/** Pieces that exercise every rule, unclosed and mismatched, plus markup a sanitiser must remove. */
const FRAGMENTS = [
  '$plugin[',
  ']$',
  '{',
  '}',
  '"',
  '\\"',
  '\\/',
  '\\u00e9',
  '{"type":"callout","data":{"type":"info","title":"t","text":"',
  '{"type":"table","data":{"contents":[["a","',
  '"}}',
  '"]]}}',
  '$inline[',
  '$inline[badge,x,success]',
  'badge,',
  '[',
  ']',
  '(',
  ')',
  '*',
  '_',
  '`',
  '```',
  '~~',
  '%',
  '%v%',
  '%a.b%',
  '[auto$](/doc/page#x)',
  '![i](asset:1)',
  '<!-- asset:1=https://cdn.test/i.png -->',
  '<script>alert(1)</script>',
  '<img src=x onerror="alert(1)">',
  '<a href="javascript:alert(1)">',
  '<a href="jav&#x61;script:x">',
  '<iframe src="https://evil.test">',
  '[^1]',
  '[^1]: note',
  '- [x] ',
  '| a | b |',
  '|---|---|',
  '# ',
  '> ',
  '    ',
  '\t',
  '\n',
  '\n\n',
  '\r\n',
  'text',
  ' ',
  'é',
  '\u0000',
];

const darkdownish = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 80 }).map((parts) => parts.join(''));

function mutate(source: string, edits: Array<{ at: number; remove: number; insert: string }>): string {
  let out = source;
  for (const edit of edits) {
    const at = Math.floor(edit.at * out.length);
    out = out.slice(0, at) + edit.insert + out.slice(at + edit.remove);
  }
  return out;
}

const mutatedPage = fc
  .array(
    fc.record({
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      remove: fc.nat({ max: 40 }),
      insert: fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 10 })),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .map((edits) => mutate(featurePage(), edits));

/** Every tag of the output: no handler attribute, no script URL, nothing outside the allowlist that runs code. */
function assertSafe(html: string): void {
  expect(html).not.toMatch(/<script|<style|<object|<embed|<form/i);
  for (const [tag] of html.matchAll(/<[a-zA-Z][^>]*>/g)) {
    expect(tag).not.toMatch(/\son[a-z]+\s*=/i);
    // A script URL runs only where a URL is read; the same text in a class name is inert (a fence
    // whose info string reads href="javascript:x" gives such a class).
    expect(tag).not.toMatch(
      /\s(?:href|src|action|formaction|poster|background|xlink:href)\s*=\s*["']?\s*(?:java|vb)script:/i,
    );
    expect(tag).not.toMatch(/(?:href|src)="data:(?!image\/)/i);
    if (tag.startsWith('<iframe'))
      expect(tag).toMatch(
        /^<iframe(?: src="https:\/\/(?:www\.youtube\.com|player\.vimeo\.com|www\.loom\.com)\/|>)/,
      );
  }
}

/**
 * A bound for blowups (work growing faster than the input), not a speed goal: the slowest case takes
 * about 0.35 s a render on a quiet machine, and CI runs this file while another leg loads the cores
 * (one render took 1.25 s there).
 */
const TIME_LIMIT_MS = 3000;

function renderAll(source: string): void {
  for (const render of [renderHtml, renderMarkdown, renderText, extractSections]) {
    const started = performance.now();
    const out = render(source, ctx);
    expect(performance.now() - started).toBeLessThan(TIME_LIMIT_MS);
    expect(out).toBeDefined();
  }
  assertSafe(renderHtml(source, ctx));
}

describe('robustness', () => {
  it('renders any string in every format without throwing, safely', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), renderAll), { numRuns: 300 });
  });

  it('renders Darkdown-like noise (unclosed plugins, tokens, markup) without throwing, safely', () => {
    fc.assert(fc.property(darkdownish, renderAll), { numRuns: 500 });
  });

  it('renders random mutations of a feature-rich page without throwing, safely', () => {
    fc.assert(fc.property(mutatedPage, renderAll), { numRuns: 200 });
  });

  it.each([
    ['a 20,000-character run of $[*`', '$[*`'.repeat(5_000)],
    ['5,000 unclosed $plugin[ openers on their own lines', '$plugin[{"a": [\n'.repeat(5_000)],
    ['5,000 unclosed $plugin[ openers with open strings', '$plugin[{"a": "\n'.repeat(5_000)],
    ['one line of unclosed $inline[ tokens', '$inline[badge,'.repeat(2_000)],
    ['deeply nested brackets', `${'['.repeat(10_000)}x${']'.repeat(10_000)}`],
    ['deeply nested quotes and lists', '> - '.repeat(3_000)],
    [
      'a long run of backticks of growing length',
      Array.from({ length: 150 }, (_, i) => '`'.repeat(i + 1)).join('x'),
    ],
    ['many variables and percent signs', '%v% %a.b% %x% %'.repeat(1_500)],
    ['a 200 KB plugin JSON string', `$plugin[{"type":"callout","data":{"text":"${'x'.repeat(200_000)}"}}]$`],
    ['a code block with 20,000 blank lines inside', `\`\`\`\n${'\n'.repeat(20_000)}x\n\`\`\``],
    ['custom HTML full of unclosed tags', plugin('custom-html', { contents: '<p'.repeat(10_000) })],
    ['an HTML block full of unclosed tags', `<div>${'<a<b '.repeat(5_000)}`],
    ['a table cell of 20,000 spaces', plugin('table', { contents: [['a'], [`x${' '.repeat(20_000)}y`]] })],
    [
      '30,000 asset mapping comments',
      `![a](asset:1)\n${'<!-- asset:1=https://x.test/a.png -->\n'.repeat(30_000)}`,
    ],
  ])('renders %s within the time limit', (_name, source) => {
    for (const render of [renderHtml, renderMarkdown, renderText]) {
      const started = performance.now();
      render(source, ctx);
      expect(performance.now() - started).toBeLessThan(TIME_LIMIT_MS);
    }
  });

  it('renders the feature page the same way every time (no state leaks between renders)', () => {
    const first = renderHtml(featurePage(), featurePageContext);
    renderHtml('## Setup\n\n## Setup', ctx);
    expect(renderHtml(featurePage(), featurePageContext)).toBe(first);
  });
});
