import { describe, expect, it } from 'vitest';
import { extractSections, renderHtml } from '../../src/content/index.ts';
import { page, plugin } from './helpers.ts';

describe('extractSections', () => {
  it('splits plain text at each H2, the part before the first H2 without heading', () => {
    const source = page(
      'Intro *text*.',
      '## Install %product%',
      'Run it.',
      '### Details',
      '- a\n- b',
      '## Use',
      plugin('callout', { type: 'info', title: 'Tip', text: 'Be **quick**.' }),
    );
    expect(extractSections(source, { variables: { product: 'Quire' } })).toEqual([
      { heading: null, anchor: null, text: 'Intro text.' },
      { heading: 'Install Quire', anchor: 'install-quire', text: 'Run it.\n\nDetails\n\na\nb' },
      { heading: 'Use', anchor: 'use', text: 'Tip\nBe quick.' },
    ]);
  });

  it('leaves out an empty part before the first H2 and keeps empty sections', () => {
    expect(extractSections('## A\n## B\n\nb')).toEqual([
      { heading: 'A', anchor: 'a', text: '' },
      { heading: 'B', anchor: 'b', text: 'b' },
    ]);
  });

  it('gives the anchors the HTML gives, repeats numbered alike', () => {
    const source = page('## Setup', 'x', '### Setup', '## Setup');
    const anchors = extractSections(source).map((s) => s.anchor);
    expect(anchors).toEqual(['setup', 'setup-3']);
    const ids = [...renderHtml(source).matchAll(/<h2 id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(anchors);
  });

  it('gives a heading holding an [auto$] link the anchor of its slug, whatever the title it shows', () => {
    const source = page('## See [auto$](/guides/other-page)', 'x', '## Other page', 'y');
    const anchors = extractSections(source).map((s) => s.anchor);
    expect(anchors).toEqual(['see-other-page', 'other-page']);
    for (const title of ['Renamed', 'Other page']) {
      const html = renderHtml(source, { pageTitles: new Map([['guides/other-page', title]]) });
      expect(html).toContain(`<h2 id="see-other-page">See <a href="/guides/other-page">${title}</a></h2>`);
      expect([...html.matchAll(/<h2 id="([^"]+)"/g)].map((m) => m[1])).toEqual(anchors);
    }
  });

  it('does not split at an H2 inside a quote or a list', () => {
    expect(extractSections('> ## Quoted\n\n- ## Listed\n')).toEqual([
      { heading: null, anchor: null, text: 'Quoted\n\nListed' },
    ]);
  });

  it('returns nothing for an empty page', () => {
    expect(extractSections('')).toEqual([]);
  });
});
