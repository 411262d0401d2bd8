import MarkdownIt from 'markdown-it';
import footnote from 'markdown-it-footnote';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/content/index.ts';
import { sanitizeHtmlOutput } from '../../src/content/sanitiser.ts';

interface SpecExample {
  markdown: string;
  html: string;
  section: string;
  number: number;
}

const require = createRequire(import.meta.url);
const spec = require('commonmark-spec') as { tests: SpecExample[] };

/** Raw HTML is sanitised by design, so those sections cannot match the reference. */
const EXCLUDED_SECTIONS = new Set(['Raw HTML', 'HTML blocks']);

/** The spec writes tabs as → in its examples. */
function tabs(text: string): string {
  return text.replace(/→/g, '\t');
}

function normalise(html: string): string {
  return html
    .replace(/<(h[1-6]) id="[^"]*">/g, '<$1>')
    .replace(/\s+/g, ' ')
    .replace(/> </g, '><')
    .trim();
}

describe('CommonMark 0.31.2 conformance of renderHtml', () => {
  const examples = spec.tests.filter((t) => !EXCLUDED_SECTIONS.has(t.section));

  it('loads the spec examples', () => {
    expect(spec.tests.length).toBeGreaterThan(600);
    expect(examples.length).toBeGreaterThan(550);
  });

  it('matches the reference HTML (ids stripped, reference sanitised alike) for at least 98% of examples', () => {
    const failures: string[] = [];
    for (const example of examples) {
      const actual = normalise(renderHtml(tabs(example.markdown)));
      const expected = normalise(sanitizeHtmlOutput(tabs(example.html)));
      if (actual !== expected) failures.push(`#${example.number} (${example.section})`);
    }
    const passed = examples.length - failures.length;
    const rate = (passed / examples.length) * 100;
    console.log(`CommonMark conformance: ${passed}/${examples.length} (${rate.toFixed(1)}%)`);
    if (failures.length > 0) console.log(`CommonMark differences: ${failures.join(', ')}`);
    expect(rate).toBeGreaterThanOrEqual(98);
  });
});

describe('plain Markdown renders as markdown-it renders it', () => {
  it('gives the same HTML as a plain markdown-it for every spec example, apart from ids, highlighting and GFM autolinks', () => {
    const plain = new MarkdownIt({ html: true }).use(footnote);
    const differing = spec.tests.filter((example) => {
      const source = tabs(example.markdown);
      // Highlighting only wraps code in spans (test/content/highlight.test.ts): they are taken out.
      const ours = renderHtml(source)
        .replace(/<(h[1-6]) id="[^"]*">/g, '<$1>')
        .replace(/<span class="hljs-[^"]*">|<\/span>/g, '');
      return ours !== sanitizeHtmlOutput(plain.render(source));
    });
    // Only where GFM extended autolinks link a bare URL or email that CommonMark leaves as text.
    expect(differing.map((e) => e.section)).toEqual(['Autolinks', 'Autolinks', 'Autolinks', 'Autolinks']);
  });
});
