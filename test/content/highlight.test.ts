import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/content/index.ts';
import { renderHtmlWholeDocument } from '../../src/content/html-renderer.ts';
import { sanitizeHtmlOutput } from '../../src/content/sanitiser.ts';

const fence = (language: string, code: string) => `\`\`\`${language}\n${code}\n\`\`\`\n`;

describe('code highlighted as the page renders', () => {
  it('wraps the tokens of a known language in hljs spans, text escaped as the sanitiser escapes it', () => {
    const html = renderHtml(fence('ts', 'const a: string = "<b>&";'));
    expect(html).toBe(
      '<pre><code class="language-ts"><span class="hljs-keyword">const</span> ' +
        '<span class="hljs-attr">a</span>: <span class="hljs-built_in">string</span> = <span class="hljs-string">"&lt;b&gt;&amp;"</span>;\n</code></pre>\n',
    );
    expect(sanitizeHtmlOutput(html)).toBe(html);
  });

  it('keeps markup in code as text, whatever the language makes of it', () => {
    const code = '</code></pre><script>alert(1)</script><img src=x onerror=alert(2)>';
    for (const language of ['html', 'js', 'markdown', 'json']) {
      const html = renderHtml(fence(language, code));
      expect(html).not.toMatch(/<script|<img/);
      expect(html).toBe(renderHtmlWholeDocument(fence(language, code)));
    }
  });

  it('leaves an unknown language, none and very long blocks escaped as they were', () => {
    expect(renderHtml(fence('klingon', 'a < b'))).toBe(
      '<pre><code class="language-klingon">a &lt; b\n</code></pre>\n',
    );
    expect(renderHtml(fence('', 'a < b'))).toBe('<pre><code>a &lt; b\n</code></pre>\n');
    const long = 'const x = 1;\n'.repeat(5_000);
    expect(renderHtml(fence('js', long))).not.toContain('hljs-');
  });
});
