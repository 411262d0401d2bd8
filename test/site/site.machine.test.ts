import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { adminContext, createProject } from '../helpers/factories.ts';
import { openapiYaml, upload } from '../helpers/references.ts';
import { client, useTestApp } from '../helpers/test-app.ts';
import { createDocumentation, createPublicSite, createVersion, sitePage, visit } from './site-helpers.ts';
import { childrenNamed, parseXml, textOf } from './xml-check.ts';

const t = useTestApp();

async function createChangelog(deps: Deps, projectId: number) {
  const ctx = await adminContext(deps, { projectId });
  return deps.changelogs.create(ctx, { title: 'Release notes', slug: 'notes' });
}

async function writePost(key: string, changelogId: number, slug: string, published: boolean) {
  t.clock.advance(60_000);
  const res = await client(t.app, key).post(`/changelog/${changelogId}/post`, {
    title: `Post ${slug}`,
    slug,
    content: 'Text.',
    published,
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** The sitemap's addresses below the site's root, with their lastmod. */
async function sitemapOf(root: string): Promise<Map<string, string>> {
  const res = await visit(t.app, `${root}/sitemap.xml`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
  const urlset = parseXml(res.body);
  expect(urlset.name).toBe('urlset');
  expect(urlset.attributes.xmlns).toBe('http://www.sitemaps.org/schemas/sitemap/0.9');
  const urls = new Map<string, string>();
  for (const url of childrenNamed(urlset, 'url')) {
    const loc = textOf(url, 'loc') ?? '';
    const prefix = `http://localhost:80${root}`;
    expect(loc.startsWith(prefix), loc).toBe(true);
    urls.set(loc.slice(prefix.length), textOf(url, 'lastmod') ?? '');
  }
  return urls;
}

async function llmsOf(root: string): Promise<string> {
  const res = await visit(t.app, `${root}/llms.txt`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  return res.body;
}

/**
 * A public project with one page of every kind readers must and must not find: the visible ones
 * listed in `expected`, the others named in `hidden`.
 */
async function projectOfEveryKind() {
  const w = await createPublicSite(t.deps);
  const api = client(t.app, w.key);
  const root = `/sites/${w.project.id}`;
  await sitePage(t.app, w.key, w.documentation.id, { title: 'Visible page', slug: 'visible' });
  // A draft only: listed, never published.
  await sitePage(t.app, w.key, w.documentation.id, {
    title: 'Draft only',
    slug: 'draft-only',
    listed: true,
    publish: false,
  });
  const unlisted = await sitePage(t.app, w.key, w.documentation.id, { title: 'Unlisted', slug: 'unlisted' });
  expect((await api.put(`/page/${unlisted}`, { listed: false })).statusCode).toBe(200);
  const deleted = await sitePage(t.app, w.key, w.documentation.id, { title: 'Deleted', slug: 'deleted' });
  expect((await api.delete(`/page/${deleted}`)).statusCode).toBe(200);
  const hiddenSection = await createDocumentation(t.deps, w.version.id, {
    title: 'Hidden section',
    slug: 'hidden',
    published: false,
  });
  await sitePage(t.app, w.key, hiddenSection.id, { title: 'In hidden section', slug: 'in-hidden' });
  const hiddenVersion = await createVersion(t.deps, w.project.id, {
    name: 'v0',
    slug: 'v0',
    published: false,
  });
  const inHiddenVersion = await createDocumentation(t.deps, hiddenVersion.id, { title: 'Old', slug: 'old' });
  await sitePage(t.app, w.key, inHiddenVersion.id, { title: 'In hidden version', slug: 'in-hidden-version' });
  const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2', published: true });
  const v2Guides = await createDocumentation(t.deps, v2.id, { title: 'Guides two', slug: 'guides' });
  await sitePage(t.app, w.key, v2Guides.id, { title: 'Newer page', slug: 'newer' });
  expect(
    (await upload(t.app, w.key, w.version.id, openapiYaml('Pet Store'), { publish: true })).statusCode,
  ).toBe(201);
  expect(
    (await upload(t.app, w.key, w.version.id, openapiYaml('Draft API'), { publish: false })).statusCode,
  ).toBe(201);
  const changelog = await createChangelog(t.deps, w.project.id);
  await writePost(w.key, changelog.id, 'out', true);
  await writePost(w.key, changelog.id, 'secret', false);
  return { ...w, api, root, unlisted, changelog, v2 };
}

describe('the reader site: sitemap.xml', () => {
  it('lists exactly what readers find: listed readable pages, published references and posts', async () => {
    const w = await projectOfEveryKind();
    const urls = await sitemapOf(w.root);
    expect([...urls.keys()].sort()).toEqual(
      [
        '/',
        '/changelog/notes',
        '/changelog/notes/out',
        '/v1/guides/visible',
        '/v1/ref/pet-store',
        '/v2/guides/newer',
      ].sort(),
    );
    for (const [path, lastmod] of urls) {
      expect(lastmod, path).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    }
    expect(urls.get('/changelog/notes/out')).toBe('2026-11-21T10:16:00+00:00');

    // What the sitemap leaves out answers 404 — except the unlisted page, which readers may open.
    expect((await visit(t.app, `${w.root}/v1/guides/unlisted`)).statusCode).toBe(200);
    for (const path of [
      '/v1/guides/draft-only',
      '/v1/guides/deleted',
      '/v1/hidden/in-hidden',
      '/v0/old/in-hidden-version',
      '/changelog/notes/secret',
    ]) {
      expect((await visit(t.app, `${w.root}${path}`)).statusCode, path).toBe(404);
    }
  });

  it('dates a page by its last publish, and names the project’s host when it has one', async () => {
    const w = await createPublicSite(t.deps);
    const api = client(t.app, w.key);
    const id = await sitePage(t.app, w.key, w.documentation.id, { title: 'Dated', slug: 'dated' });
    t.clock.advance(3_600_000);
    // A draft edit is not what readers see: the date stays.
    expect((await api.put(`/page/${id}`, { content: 'A new draft.' })).statusCode).toBe(200);
    expect((await sitemapOf(`/sites/${w.project.id}`)).get('/v1/guides/dated')).toBe(
      '2026-11-21T10:15:00+00:00',
    );
    t.clock.advance(3_600_000);
    expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
    expect((await sitemapOf(`/sites/${w.project.id}`)).get('/v1/guides/dated')).toBe(
      '2026-11-21T12:15:00+00:00',
    );

    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    await t.deps.projects.update(ctx, { host: 'https://docs.example.com', basePath: '/base' });
    const res = await visit(t.app, `/sites/${w.project.id}/sitemap.xml`);
    const locs = childrenNamed(parseXml(res.body), 'url').map((url) => textOf(url, 'loc'));
    expect(locs).toEqual(['https://docs.example.com/base/', 'https://docs.example.com/base/v1/guides/dated']);
  });

  it('shows a change at the very next request: a renamed page, a new post, a deleted page', async () => {
    const w = await createPublicSite(t.deps);
    const api = client(t.app, w.key);
    const root = `/sites/${w.project.id}`;
    const id = await sitePage(t.app, w.key, w.documentation.id, { title: 'Before', slug: 'before' });
    const changelog = await createChangelog(t.deps, w.project.id);
    const first = await visit(t.app, `${root}/sitemap.xml`);
    expect([...(await sitemapOf(root)).keys()]).toEqual(['/', '/v1/guides/before']);
    // Kept under the change stamp: the same answer, and a 304 for its tag.
    expect(
      (await visit(t.app, `${root}/sitemap.xml`, { 'if-none-match': String(first.headers.etag) })).statusCode,
    ).toBe(304);

    expect((await api.put(`/page/${id}`, { title: 'After' })).statusCode).toBe(200);
    expect([...(await sitemapOf(root)).keys()]).toEqual(['/', '/v1/guides/after']);
    await writePost(w.key, changelog.id, 'new', true);
    expect([...(await sitemapOf(root)).keys()]).toEqual([
      '/',
      '/v1/guides/after',
      '/changelog/notes/new',
      '/changelog/notes',
    ]);
    expect((await api.delete(`/page/${id}`)).statusCode).toBe(200);
    expect([...(await sitemapOf(root)).keys()]).toEqual(['/', '/changelog/notes/new', '/changelog/notes']);
  });

  it('gives nothing of a private project without a session but the way to its login', async () => {
    const project = await createProject(t.deps, { access: 'invite' });
    for (const file of ['sitemap.xml', 'llms.txt']) {
      const res = await visit(t.app, `/sites/${project.id}/${file}`);
      expect(res.statusCode, file).toBe(302);
      expect(res.headers.location, file).toBe(`/sites/${project.id}/login?next=%2F${file}`);
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
  });
});

describe('the reader site: llms.txt', () => {
  it('lists the default version’s listed readable pages by section, linking their Markdown', async () => {
    const w = await projectOfEveryKind();
    const reference = await createDocumentation(t.deps, w.version.id, {
      title: 'Reference [all]',
      slug: 'ref-docs',
    });
    await sitePage(t.app, w.key, reference.id, {
      title: 'Errors *and* codes',
      slug: 'errors',
      content: '## Codes\n\nEvery error has a `code` and a message.\n\nMore.',
    });
    await createDocumentation(t.deps, w.version.id, { title: 'Empty', slug: 'empty' });
    const body = await llmsOf(w.root);
    const origin = `http://localhost:80${w.root}`;
    expect(body).toBe(
      [
        `# ${w.project.name}`,
        '',
        `> The documentation of ${w.project.name}, version v1: each page below links to its Markdown.`,
        '',
        '## Guides',
        '',
        `- [Visible page](${origin}/v1/guides/visible.md): Visible page is a page.`,
        '',
        '## Reference \\[all\\]',
        '',
        `- [Errors \\*and\\* codes](${origin}/v1/ref-docs/errors.md): Every error has a code and a message.`,
        '',
      ].join('\n'),
    );
    for (const hidden of [
      'Draft only',
      'Unlisted',
      'Deleted',
      'In hidden section',
      'In hidden version',
      'Newer page',
    ]) {
      expect(body).not.toContain(hidden);
    }
    // Each link answers: the page as Markdown.
    const markdown = await visit(t.app, `${w.root}/v1/guides/visible.md`);
    expect(markdown.statusCode).toBe(200);
    expect(markdown.headers['content-type']).toBe('text/markdown; charset=utf-8');
  });

  it('describes a page as its own page does: the first paragraph as text, cut near 160 characters', async () => {
    const w = await createPublicSite(t.deps);
    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    await t.deps.projects.update(ctx, { variables: { product: 'Quirely' } });
    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const pages: Array<[string, string]> = [
      ['long', `${long}\n\nSecond paragraph.`],
      ['heading-first', '## Start here\n\nThe **first** paragraph, with a [link](https://example.com).'],
      ['variables', 'About %product% and its <b>raw</b> HTML & more.'],
      ['code-first', `\`\`\`js\n${'const x = 1;\n'.repeat(100)}\`\`\`\n\nAfter the code.`],
      ['no-paragraph', '## Only a heading'],
      ['fence-blank', '```\nconst a = 1;\n\nconst b = 2;\n```\n\nAfter the fence.'],
      ['loose-list', '- one item\n\n- two items\n\nAfter the list.'],
      ['large', `Opening of a large page.\n\n${'Filler sentence in a long page. '.repeat(200)}`],
      [
        'cut-plugin',
        `## A\n\n$plugin[\n{"type": "callout", "data": {"type": "info", "title": "T", "text": "${'x '.repeat(1500)}"}}\n]$\n\nAfter the callout.`,
      ],
    ];
    for (const [slug, content] of pages) {
      await sitePage(t.app, w.key, w.documentation.id, { title: `Title of ${slug}`, slug, content });
    }
    const body = await llmsOf(`/sites/${w.project.id}`);
    const described = new Map(
      [...body.matchAll(/^- \[[^\]]*\]\([^)]*\/guides\/([a-z-]+)\.md\): (.*)$/gm)].map((m) => [m[1], m[2]]),
    );
    expect(described.get('long')).toMatch(/^word0 word1 .* word\d+…$/);
    expect((described.get('long') ?? '').length).toBeLessThanOrEqual(160);
    expect(described.get('heading-first')).toBe('The first paragraph, with a link.');
    expect(described.get('variables')).toBe('About Quirely and its raw HTML & more.');
    expect(described.get('code-first')).toBe('After the code.');
    expect(described.get('no-paragraph')).toBe('Title of no-paragraph');
    expect(described.get('fence-blank')).toBe('After the fence.');
    expect(described.get('loose-list')).toBe('one item');
    expect(described.get('large')).toBe('Opening of a large page.');
    // A plugin longer than the opening is left out, not shown as its JSON.
    expect(described.get('cut-plugin')).toBe('Title of cut-plugin');

    // The same words as the page's own description, where the opening holds its first paragraph.
    for (const slug of [
      'long',
      'heading-first',
      'variables',
      'code-first',
      'no-paragraph',
      'fence-blank',
      'loose-list',
      'large',
    ]) {
      const page = await visit(t.app, `/sites/${w.project.id}/v1/guides/${slug}`);
      const meta = /<meta name="description" content="([^"]*)"\/>/.exec(page.body)?.[1] ?? '';
      const text = meta
        .replace(/&amp;/g, '&')
        .replace(/&lt;/g, '<')
        .replace(/&quot;/g, '"');
      expect(described.get(slug), slug).toBe(text);
    }
  });

  it('shows a change at the very next request: a renamed page, a new page, new contents', async () => {
    const w = await createPublicSite(t.deps);
    const api = client(t.app, w.key);
    const root = `/sites/${w.project.id}`;
    const id = await sitePage(t.app, w.key, w.documentation.id, { title: 'First name', slug: 'first' });
    const before = await visit(t.app, `${root}/llms.txt`);
    expect(before.body).toContain('- [First name](');
    expect(
      (await visit(t.app, `${root}/llms.txt`, { 'if-none-match': String(before.headers.etag) })).statusCode,
    ).toBe(304);

    expect((await api.put(`/page/${id}`, { title: 'Second name' })).statusCode).toBe(200);
    let body = await llmsOf(root);
    expect(body).toContain(
      `- [Second name](http://localhost:80${root}/v1/guides/second-name.md): First name is a page.`,
    );
    expect(body).not.toContain('First name](');

    expect((await api.put(`/page/${id}`, { content: 'Rewritten opening.' })).statusCode).toBe(200);
    expect(await llmsOf(root)).toContain('): First name is a page.');
    expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
    expect(await llmsOf(root)).toContain('/v1/guides/second-name.md): Rewritten opening.');

    await sitePage(t.app, w.key, w.documentation.id, { title: 'Another', slug: 'another' });
    body = await llmsOf(root);
    expect(body.indexOf('[Second name]')).toBeLessThan(body.indexOf('[Another]'));
  });

  it('says so when nothing is published', async () => {
    const project = await createProject(t.deps, { access: 'public' });
    const body = await llmsOf(`/sites/${project.id}`);
    expect(body).toBe(
      `# ${project.name}\n\n> The documentation of ${project.name}. Nothing is published yet.\n`,
    );
    const urls = await sitemapOf(`/sites/${project.id}`);
    expect(urls.size).toBe(0);
  });
});
