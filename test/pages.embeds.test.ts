import { describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

const plugin = (type: string, data: object) => `$plugin[${JSON.stringify({ type, data })}]$`;

/** Every iframe element of a page's HTML: its opening tag, and its source if it has one. */
const iframesIn = (html: string) =>
  [...html.matchAll(/<iframe\b[^>]*>/gi)].map((m) => ({ tag: m[0], src: /\ssrc="([^"]*)"/.exec(m[0])?.[1] }));

describe('iframes in a page', () => {
  it('keeps an allowed embed and drops every iframe without an allowed source, in HTML and Markdown', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const content = [
      'Before <iframe></iframe> after.',
      '<iframe src="https://evil.test/x">fallback</iframe>',
      '<div>\n<iframe src="javascript:alert(1)"></iframe>kept\n</div>',
      'Inline <iframe src="//elsewhere.test/p" title="t">inner *text*</iframe> end.',
      plugin('custom-html', {
        contents: '<p>custom <iframe></iframe><iframe src="data:text/html,x"></iframe></p>',
      }),
      plugin('video', { provider: 'youtube', videoId: 'abc' }),
      '<iframe src="https://player.vimeo.com/video/42" title="Allowed"></iframe>',
      `Tail ${'<iframe srcdoc="<b>x</b>"></iframe>'}.`,
    ].join('\n\n');
    const created = await api.post(`/documentation/${w.documentation.id}/page`, { title: 'Embeds', content });
    expect(created.statusCode).toBe(200);
    const id = created.json<{ id: number }>().id;

    const html = (await api.get(`/page/${id}?format=html`)).json<{ contentDraft: string }>().contentDraft;
    expect(iframesIn(html)).toEqual([
      {
        tag: '<iframe src="https://www.youtube.com/embed/abc" title="Video" loading="lazy" allowfullscreen>',
        src: 'https://www.youtube.com/embed/abc',
      },
      {
        tag: '<iframe src="https://player.vimeo.com/video/42" title="Allowed">',
        src: 'https://player.vimeo.com/video/42',
      },
    ]);
    // What a dropped iframe enclosed goes with it; the text around it stays.
    for (const gone of ['fallback', 'inner', 'srcdoc']) expect(html).not.toContain(gone);
    for (const kept of ['Before', 'after.', 'kept', 'Inline', 'end.', 'custom', 'Tail']) {
      expect(html).toContain(kept);
    }

    const markdown = (await api.get(`/page/${id}?format=markdown`)).json<{ contentDraft: string }>()
      .contentDraft;
    // Markdown links to the video's page; the raw embed is kept as written.
    expect(iframesIn(markdown)).toEqual([
      {
        tag: '<iframe src="https://player.vimeo.com/video/42" title="Allowed">',
        src: 'https://player.vimeo.com/video/42',
      },
    ]);
    expect(markdown).toContain('[Video](https://www.youtube.com/watch?v=abc)');
    for (const gone of ['fallback', 'inner', 'srcdoc']) expect(markdown).not.toContain(gone);
    for (const kept of ['Before', 'after.', 'kept', 'Inline', 'end.', 'custom', 'Tail']) {
      expect(markdown).toContain(kept);
    }
  });
});
