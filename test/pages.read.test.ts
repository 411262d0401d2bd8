import { describe, expect, it } from 'vitest';
import { renderContent } from '../src/content/index.ts';
import { createDocumentation, createKey, createVersion, createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

const SOURCE = [
  '## Install the CLI',
  '',
  'Use [auto$](/reference/configuration#env) with %product% on *every* host.\r',
  '',
  '$plugin[',
  '{"type":"callout","data":{"type":"warning","title":"Careful","text":"Back up <b>first</b>.\\/"}}',
  ']$',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
].join('\n');

async function world() {
  const w = await createWorld(t.deps);
  const api = client(t.app, w.key);
  const reference = await createDocumentation(t.deps, w.version.id, {
    title: 'Reference',
    slug: 'reference',
  });
  const target = await api.post(`/documentation/${reference.id}/page`, {
    title: 'Configuration Options',
    content: 'x',
    slug: 'configuration',
  });
  await t.deps.database.db
    .updateTable('projects')
    .set({ variables: JSON.stringify({ product: 'Quire Cloud' }) })
    .where('id', '=', w.project.id)
    .execute();
  const res = await api.post(`/documentation/${w.documentation.id}/page`, {
    title: 'Install',
    content: SOURCE,
  });
  const id = res.json().id as number;
  return { ...w, api, id, targetId: target.json().id as number };
}

describe('GET /page/{id}', () => {
  it('returns the stored Darkdown byte for byte by default and with format=darkdown', async () => {
    const w = await world();
    for (const url of [`/page/${w.id}`, `/page/${w.id}?format=darkdown`]) {
      const res = await w.api.get(url);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        id: w.id,
        listed: false,
        title: 'Install',
        created: '2026-11-21T10:15:00+0000',
        updated: '2026-11-21T10:15:00+0000',
        slug: 'install',
        contentDraft: SOURCE,
        contentPublished: null,
        path: 'v1/guides/install',
      });
    }
    expect(t.deps.pages.renderStats().renders).toBe(0);
  });

  it('renders html, markdown and text with the titles of linked pages and the project variables', async () => {
    const w = await world();
    const ctx = {
      pageTitles: new Map([['reference/configuration', 'Configuration Options']]),
      variables: { product: 'Quire Cloud' },
    };
    for (const format of ['html', 'markdown', 'text'] as const) {
      const res = await w.api.get(`/page/${w.id}?format=${format}`);
      expect(res.statusCode).toBe(200);
      const page = res.json();
      expect(page.contentDraft).toBe(renderContent(SOURCE, format, ctx));
      expect(page.contentDraft).toContain('Configuration Options');
      expect(page.contentDraft).toContain('Quire Cloud');
      expect(page.contentPublished).toBeNull();
    }
    const html = (await w.api.get(`/page/${w.id}?format=html`)).json().contentDraft as string;
    expect(html).toContain('<h2 id="install-the-cli">Install the CLI</h2>');
    expect(html).toContain('<a href="/reference/configuration#env">Configuration Options</a>');
    expect(html).toContain('callout callout-warning');
    expect(html).toContain('<table>');
    const markdown = (await w.api.get(`/page/${w.id}?format=markdown`)).json().contentDraft as string;
    expect(markdown).toContain('[Configuration Options](/reference/configuration#env)');
    expect(markdown).toContain('> [!WARNING]');
    const text = (await w.api.get(`/page/${w.id}?format=text`)).json().contentDraft as string;
    expect(text).not.toContain('<');
    expect(text).not.toContain('##');
  });

  it("writes an image's stored asset address in its own place in markdown, not at a link's copy of it", async () => {
    const w = await world();
    const content = [
      'See [the logo](asset:7) and ![Logo](asset:7), and [![Small](asset:7)](/home).',
      '',
      '<!-- asset:7=https://cdn.example.com/logo.png -->',
    ].join('\n');
    expect((await w.api.put(`/page/${w.id}`, { content })).statusCode).toBe(200);
    const markdown = (await w.api.get(`/page/${w.id}?format=markdown`)).json().contentDraft as string;
    // A link cannot name an asset (HTML drops its address): it stays as written.
    expect(markdown).toBe(
      'See [the logo](asset:7) and ![Logo](https://cdn.example.com/logo.png), and [![Small](https://cdn.example.com/logo.png)](/home).\n',
    );
    const html = (await w.api.get(`/page/${w.id}?format=html`)).json().contentDraft as string;
    expect(html).toContain('<img src="https://cdn.example.com/logo.png" alt="Logo" />');
    expect(html).toContain('<a href="/home"><img src="https://cdn.example.com/logo.png" alt="Small" /></a>');
  });

  it('renders both contents after publish and keeps null as null in every format', async () => {
    const w = await world();
    await w.api.put(`/page/${w.id}/publish`);
    await w.api.put(`/page/${w.id}`, { content: '# Next\n\n**bold**' });
    const html = (await w.api.get(`/page/${w.id}?format=html`)).json();
    expect(html.contentDraft).toBe('<h1 id="next">Next</h1>\n<p><strong>bold</strong></p>\n');
    expect(html.contentPublished).toContain('<h2 id="install-the-cli">');

    await w.api.put(`/page/${w.id}/publish`);
    for (const format of ['darkdown', 'html', 'markdown', 'text']) {
      const page = (await w.api.get(`/page/${w.id}?format=${format}`)).json();
      expect(page.contentDraft, format).toBeNull();
      expect(typeof page.contentPublished, format).toBe('string');
    }
  });

  it('falls back to the slug for an [auto$] link to a missing page, and to no variables for bad JSON', async () => {
    const w = await world();
    await t.deps.database.db.updateTable('projects').set({ variables: '[1,2]' }).execute();
    const res = await w.api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Dangling',
      content: 'See [auto$](/nowhere/missing) and %product%.',
    });
    const page = (await w.api.get(`/page/${res.json().id}?format=text`)).json();
    expect(page.contentDraft).toBe('See missing and %product%.');
  });

  it('rejects an unknown format with a 400 naming the allowed ones', async () => {
    const w = await world();
    const res = await w.api.get(`/page/${w.id}?format=pdf`);
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).details).toEqual([
      { field: 'query.format', message: 'must be one of darkdown, markdown, html, text, markdoc' },
    ]);
    expect((await w.api.get('/page/abc')).statusCode).toBe(400);
    expect((await w.api.get('/page/0')).statusCode).toBe(400);
  });

  it('answers 404 for unknown, foreign and deleted pages, 403 without page.read or outside the key versions', async () => {
    const w = await world();
    expect((await w.api.get('/page/999999')).statusCode).toBe(404);
    const foreign = await createWorld(t.deps);
    const res = await client(t.app, foreign.key).get(`/page/${w.id}?format=html`);
    expect(res.statusCode).toBe(404);
    expect(expectErrorShape(res).message).toBe(`Page ${w.id} not found.`);

    const editor = await createKey(t.deps, w.project.id, { permissions: ['page.edit'] });
    const denied = await client(t.app, editor.key).get(`/page/${w.id}`);
    expect(denied.statusCode).toBe(403);
    expect(expectErrorShape(denied).message).toContain('page.read');
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2' });
    const scoped = await createKey(t.deps, w.project.id, { versions: [v2.id] });
    expect((await client(t.app, scoped.key).get(`/page/${w.id}`)).statusCode).toBe(403);
    const inScope = await createKey(t.deps, w.project.id, {
      versions: [w.version.id],
      permissions: ['page.read'],
    });
    expect((await client(t.app, inScope.key).get(`/page/${w.id}`)).statusCode).toBe(200);

    await t.deps.database.db
      .updateTable('pages')
      .set({ deleted_at: '2026-11-21T10:15:00.000Z' })
      .where('id', '=', w.id)
      .execute();
    expect((await w.api.get(`/page/${w.id}`)).statusCode).toBe(404);
    await t.deps.database.db
      .updateTable('versions')
      .set({ deleted_at: '2026-11-21T10:15:00.000Z' })
      .where('id', '=', w.version.id)
      .execute();
    expect((await w.api.get(`/page/${w.targetId}`)).statusCode).toBe(404);
  });

  it('sets the rate-limit headers of the read operation', async () => {
    const w = await world();
    const res = await w.api.get(`/page/${w.id}`);
    expect(res.headers['x-ratelimit-limit']).toBe('600');
    expect(res.headers['x-ratelimit-remaining']).toBe('1');
  });
});
