import { describe, expect, it } from 'vitest';
import { readAsk } from '../../src/site/site.search.ts';
import { safeHighlight } from '../../src/site/site.search.presenter.ts';

describe("the site search's checks of what it is given", () => {
  it('inserts a highlight only when it is escaped text and balanced <mark> elements', () => {
    for (const html of [
      '',
      'plain',
      "a <mark>b</mark> c &amp; &lt;d&gt; &quot;e&quot; 'f'",
      '<mark>x</mark>',
    ]) {
      expect(safeHighlight(html), html).toBe(html);
    }
    for (const html of [
      '<script>x()</script>',
      '<mark onclick="x()">a</mark>',
      '<MARK>a</MARK>',
      '<mark>a',
      'a</mark>',
      '<mark><mark>a</mark></mark>',
      'a & b',
      '&#x3c;script&#x3e;',
      '<b>a</b>',
      '<img src=x onerror=y()>',
    ]) {
      expect(safeHighlight(html), html).toBeNull();
    }
  });

  it('reads any query string without throwing, control characters and unpaired halves made spaces', () => {
    const versions = [{ id: 1, name: 'One', slug: 'v1' }];
    expect(readAsk('/search?q=a%00b%01c%7Fd%C2%9Fe&page=2&v=v1', versions)).toEqual({
      q: 'a b c d e',
      refusal: null,
      page: 2,
      version: versions[0],
    });
    expect(readAsk('/search?q=%FF%ED%A0%80+x&page=0&v=v2', versions)).toEqual({
      q: '\ufffd\ufffd\ufffd\ufffd x',
      refusal: null,
      page: 1,
      version: null,
    });
    expect(readAsk('/search', versions)).toEqual({ q: '', refusal: null, page: 1, version: null });
    expect(readAsk('/search?q=%%', versions).q).toBe('%%');
    const long = readAsk(`/search?q=${'😀'.repeat(300)}`, versions);
    expect(long.refusal).toMatch(/600 characters long; searches are at most 500/);
    expect(long.q).toBe('😀'.repeat(250));
  });
});
