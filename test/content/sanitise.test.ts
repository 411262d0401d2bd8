import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/content/index.ts';
import { page, plugin } from './helpers.ts';

describe('HTML output is sanitised', () => {
  it('drops script and style elements with their contents', () => {
    const html = renderHtml(
      page('<script>alert(1)</script>', '<style>p{}</style>', 'a <script>x()</script> b'),
    );
    expect(html).not.toMatch(/<script|<style|alert|p\{\}|x\(\)/);
  });

  it('drops event handler attributes', () => {
    const html = renderHtml('<div onclick="x()" class="ok"><img src="/a.png" onerror="y()"></div>');
    expect(html).toBe('<div class="ok"><img src="/a.png" /></div>');
  });

  it('drops javascript: and vbscript: URLs, raw or entity-encoded', () => {
    const html = renderHtml(
      page(
        '<a href="javascript:alert(1)">a</a> <a href="JaVaScRiPt:x">b</a> <a href="vbscript:x">c</a>',
        '<a href="jav&#x61;script:x">d</a> <a href=" javascript:x">e</a>',
        '[f](javascript:alert(1))',
      ),
    );
    expect(html).toBe(
      '<p><a>a</a> <a>b</a> <a>c</a></p>\n<p><a>d</a> <a>e</a></p>\n<p>[f](javascript:alert(1))</p>\n',
    );
  });

  it('allows data: URLs for images only', () => {
    const html = renderHtml(
      '<img src="data:image/png;base64,AAAA"> <a href="data:text/html,x">l</a> <iframe src="data:text/html,x"></iframe>',
    );
    expect(html).toContain('<img src="data:image/png;base64,AAAA" />');
    expect(html).toContain('<a>l</a>');
    expect(html).not.toContain('data:text');
  });

  it('lets iframes through only for the video providers', () => {
    const html = renderHtml(
      page(
        '<iframe src="https://www.youtube.com/embed/x"></iframe>',
        '<iframe src="https://evil.test/embed/x"></iframe>',
        '<iframe src="//www.youtube.com.evil.test/x"></iframe>',
      ),
    );
    expect(html).toContain('<iframe src="https://www.youtube.com/embed/x"></iframe>');
    expect(html).not.toContain('evil');
  });

  it('keeps the classes and ids the renderer emits', () => {
    const html = renderHtml(
      page(
        '## Title',
        plugin('callout', { type: 'info', title: 't', text: '$inline[badge,b,success]' }),
        '```js\nx\n```',
      ),
    );
    expect(html).toContain('<h2 id="title">');
    expect(html).toContain('<div class="callout callout-info">');
    expect(html).toContain('<span class="badge badge-success">');
    expect(html).toContain('<code class="language-js">');
  });

  it('keeps only text-align in styles, and only checkbox inputs', () => {
    const html = renderHtml(
      page(
        '<td style="color:red;text-align:left">x</td>',
        '<input type="text" value="x"><input type="checkbox" checked>',
      ),
    );
    expect(html).not.toContain('color');
    expect(html).not.toContain('type="text"');
    expect(html).toContain('<input type="checkbox" checked />');
  });

  it('drops forms, objects and embeds', () => {
    const html = renderHtml(
      '<form action="/x"><button formaction="javascript:x">b</button></form><object data="x"></object><embed src="x">',
    );
    expect(html).not.toMatch(/<form|<button|<object|<embed|formaction/);
  });
});
