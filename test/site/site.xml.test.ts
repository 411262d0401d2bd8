import { describe, expect, it } from 'vitest';
import { element, escapeXml, xmlDocument } from '../../src/site/site.xml.ts';
import { parseXml, textOf } from './xml-check.ts';

describe('the site’s XML', () => {
  it('escapes the markup characters of text and of attribute values', () => {
    expect(escapeXml(`a <b> & "c" 'd'`)).toBe(`a &lt;b&gt; &amp; "c" 'd'`);
    expect(escapeXml(`a <b> & "c" 'd'`, true)).toBe('a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;');
    expect(escapeXml('&amp;')).toBe('&amp;amp;');
  });

  it('keeps white space as written and drops what XML cannot hold', () => {
    expect(escapeXml('a\tb\nc\r\nd', true)).toBe('a&#9;b&#10;c&#13;&#10;d');
    expect(escapeXml('a\tb\nc\r\nd')).toBe('a\tb\nc&#13;\nd');
    expect(escapeXml('a\u0000b\u0008c\u001Fd\uFFFEe\uFFFF')).toBe('abcde');
    expect(escapeXml('lone \uD800 and \uDC00 halves')).toBe('lone  and  halves');
    expect(escapeXml('a pair 😀 stays')).toBe('a pair 😀 stays');
  });

  it('writes a document a strict reader reads back as it was built', () => {
    const nasty = `<script>alert("x")</script> & 'quotes' ]]> \u0001\r\n`;
    const document = xmlDocument(
      element(
        'feed',
        { xmlns: 'http://www.w3.org/2005/Atom', 'xml:lang': nasty },
        element('title', {}, nasty),
        element('empty', { href: 'https://example.com/?a=1&b=2' }),
        null,
        element('content', { type: 'html' }, '<p>Hello &amp; <b>bye</b></p>'),
      ),
    );
    expect(document.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<feed ')).toBe(true);
    expect(document).toContain('<empty href="https://example.com/?a=1&amp;b=2"/>');
    const root = parseXml(document);
    const clean = nasty.replace('\u0001', '');
    expect(root.attributes['xml:lang']).toBe(clean);
    expect(textOf(root, 'title')).toBe(clean);
    expect(textOf(root, 'content')).toBe('<p>Hello &amp; <b>bye</b></p>');
    expect(root.children.map((child) => (typeof child === 'string' ? child : child.name))).toEqual([
      'title',
      'empty',
      'content',
    ]);
  });

  it('the test’s reader refuses what is not well-formed', () => {
    const head = '<?xml version="1.0" encoding="utf-8"?>';
    expect(() => parseXml(`${head}<a>x & y</a>`)).toThrow(/unescaped &/);
    expect(() => parseXml(`${head}<a>&nbsp;</a>`)).toThrow(/unknown entity/);
    expect(() => parseXml(`${head}<a><b></a></b>`)).toThrow(/closes/);
    expect(() => parseXml(`${head}<a/><b/>`)).toThrow(/second root/);
    expect(() => parseXml(`${head}<a t="x"y"/>`)).toThrow(/malformed attribute/);
    expect(() => parseXml(`${head}<a>\u0001</a>`)).toThrow(/cannot hold/);
  });
});
