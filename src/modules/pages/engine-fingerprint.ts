import { renderContent, type RenderContext } from '../../content/index.ts';
import { sourceDigest } from '../../shared/serialised.ts';

/**
 * Darkdown exercising what every format renders: block plugins, inline tokens, links (in a heading too,
 * whose anchor they shape), raw HTML the sanitiser must change, variables. Its outputs are part of
 * every stored output's key.
 */
const PROBE = [
  '# Probe <b onclick="x()">title</b>',
  '',
  'Text with *emphasis*, `code`, a [link](https://example.com/a?b=1 "t"), [auto$](/s/p#h), %v.x%, <script>x()</script><span style="color:red">kept</span>.',
  '',
  '## Heading with [auto$](/s/p#h) and %v.x%',
  '',
  '$plugin[{"type": "callout", "data": {"type": "warning", "title": "T", "text": "**b** <img src=x onerror=y()>"}}]$',
  '',
  '$plugin[{"type": "code-block", "data": {"languageBlocks": [{"language": "js", "title": "A", "code": "a<b"}, {"language": "none", "code": "c"}]}}]$',
  '',
  '$plugin[{"type": "image", "data": {"url": "javascript:x()", "mode": "600", "width": 1, "height": 1, "caption": "c *d*"}}]$',
  '',
  '$plugin[{"type": "table", "data": {"cols": 2, "rows": 2, "widths": [0, 0], "contents": [["a", "b|c"], ["d", "**e**"]]}}]$',
  '',
  '$plugin[{"type": "tabs", "data": {"tabs": [{"title": "t", "content": "- x\n- [ ] y"}]}}]$',
  '',
  '$plugin[{"type": "cards", "data": {"view": "grid", "cards": [{"title": "c", "text": "t", "link": "/s/p"}]}}]$',
  '',
  '$plugin[{"type": "video", "data": {"provider": "youtube", "videoId": "abc"}}]$',
  '',
  '$plugin[{"type": "custom-html", "data": {"contents": "<div onclick=\\"x\\"><iframe src=\\"//e\\"></iframe>k</div>"}}]$',
  '',
  '$inline[badge,Beta,warning] $inline[icon,fas fa-truck] $inline[key,Ctrl+C] $inline[glossary,SLA] [^1]',
  '',
  '| h | i |',
  '|---|---|',
  '| 1 | 2 |',
  '| %v.x% | [l](%v.x%) %v.x% ![%v.x%](i.png) |',
  '',
  'a*%v.x%* <%v.x%> %v.x%_a_ [l](asset:9) ![i](asset:9)',
  ']: <%v.x%>',
  '',
  '[^1]: note',
  '',
  '<!-- asset:9=https://a.test/i.png -->',
].join('\n');

let fingerprint: string | null = null;

/**
 * What the engine makes of the probe in every format, by digest: stored outputs are kept under it,
 * so a Quire whose renderer writes anything differently (a fix of the sanitiser, a new plugin
 * markup) finds none of the outputs an earlier one stored, and renders afresh.
 */
export function engineFingerprint(): string {
  if (fingerprint !== null) return fingerprint;
  const ctx: RenderContext = { pageTitles: new Map([['s/p', 'P <t>']]), variables: { v: { x: 'w' } } };
  const outputs = (['html', 'markdown', 'text'] as const).map((format) => renderContent(PROBE, format, ctx));
  fingerprint = sourceDigest(JSON.stringify(outputs)).slice(0, 12);
  return fingerprint;
}
