import { describe, expect, it } from 'vitest';
import { renderMarkdoc } from '../src/content/index.ts';
import { WORKER_RENDER_CHARS } from '../src/modules/pages/render-engine.ts';
import { plugin } from './content/helpers.ts';
import { adminContext } from './helpers/factories.ts';
import {
  emptyProject,
  exportFiles,
  importZip,
  pagesByPath,
  type ImportReport,
} from './helpers/import-client.ts';
import { createMarkdocProject, EVERY_PLUGIN } from './helpers/markdoc-project.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { zipTexts } from './helpers/zip.ts';

// `format=markdoc` (0032-markdoc-output.md): page reads, history and posts in the platform's Markdoc,
// and `GET /export?format=markdoc` in its Git layout, which `POST /import` reads back to the same
// project.

const t = useTestApp();

interface PageAnswer {
  id: number;
  contentDraft: string | null;
  contentPublished: string | null;
}

describe('format=markdoc on reads', () => {
  it('answers pages with tags and relative links to the pages’ files', async () => {
    const w = await createMarkdocProject(t.deps, t.app);
    const api = client(t.app, w.key);
    const res = await api.get(`/page/${w.welcome.id}?format=markdoc`);
    expect(res.statusCode).toBe(200);
    const body = res.json<PageAnswer>().contentPublished ?? '';
    expect(body).toContain('{% badge text="New" type="success" /%}');
    expect(body).toContain('See [setup](setup.md#steps), [auto$](setup/on-linux.md) and');
    expect(body).toContain(
      '{% callout type="warning" title="Careful" %}\nA *callout* with\n\n- a list\n{% /callout %}',
    );
    expect(body).toContain('{% card title="Setup" text="Go" link="setup.md" /%}');
    expect(body).toContain(plugin('poll', { question: 'Kept as text?' }));
    expect(body).not.toContain('$plugin[{"type":"callout"');

    // A nested page links up and across sections from its own folder.
    const linux = await api.get(`/page/${w.linux.id}?format=markdoc`);
    expect(linux.json<PageAnswer>().contentPublished).toBe(
      'Back to [setup](../setup.md) and [auth](../../api/auth.md).',
    );
    const bySlug = await api.get(
      `/page?version_slug=v1&documentation_slug=guides&page_slug=on-linux&format=markdoc`,
    );
    expect(bySlug.json<PageAnswer>().contentPublished).toBe(linux.json<PageAnswer>().contentPublished);
  });

  it('answers a revision and changelog posts in Markdoc', async () => {
    const w = await createMarkdocProject(t.deps, t.app);
    const api = client(t.app, w.key);
    const revision = await api.get(`/page/${w.setup.id}/history/1?format=markdoc`);
    expect(revision.statusCode).toBe(200);
    expect(revision.json<PageAnswer>().contentDraft).toBe('## Steps\n\nRun it.');
    const posts = await api.get(`/changelog/${w.changelog.id}/post?format=markdoc`);
    expect(posts.statusCode).toBe(200);
    expect(posts.json<{ posts: Array<{ content: string }> }>().posts.map((p) => p.content)).toEqual([
      'Soon.',
      'Hello {% badge text="New" type="info" /%}.',
    ]);
  });

  it('renders a page above the worker threshold in a thread, as in place', async () => {
    const w = await createMarkdocProject(t.deps, t.app);
    const content = Array.from({ length: 40 }, () => EVERY_PLUGIN).join('\n\n');
    expect(content.length).toBeGreaterThan(WORKER_RENDER_CHARS);
    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    await t.deps.pages.update(ctx, w.linux.id, { content });
    const res = await client(t.app, w.key).get(`/page/${w.linux.id}?format=markdoc`);
    expect(res.statusCode).toBe(200);
    const pages = new Map([
      ['guides/welcome', 'guides/welcome.md'],
      ['guides/setup', 'guides/setup.md'],
      ['guides/on-linux', 'guides/setup/on-linux.md'],
      ['guides/debian', 'guides/setup/on-linux/debian.md'],
      ['guides/secret', 'guides/secret.md'],
      ['api/auth', 'api/auth.md'],
    ]);
    const expected = renderMarkdoc(content, { file: 'guides/setup/on-linux.md', pages });
    expect(expected).toContain('[setup](../setup.md#steps)');
    expect(res.json<PageAnswer>().contentDraft).toBe(expected);
  });

  it('still refuses a format it does not know', async () => {
    const w = await createMarkdocProject(t.deps, t.app);
    const res = await client(t.app, w.key).get(`/page/${w.welcome.id}?format=mdx`);
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toContain('markdoc');
  });
});

describe('GET /export?format=markdoc', () => {
  it('writes the Git layout', async () => {
    const w = await createMarkdocProject(t.deps, t.app);
    const res = await client(t.app, w.key).get('/export?format=markdoc');
    expect(res.statusCode).toBe(200);
    const files = await zipTexts(res.rawPayload);
    expect(Object.keys(files).sort()).toEqual(
      [
        'developerhub.yaml',
        'v1/_settings.yaml',
        'v1/guides/_settings.yaml',
        'v1/guides/_nav.yaml',
        'v1/guides/welcome.md',
        'v1/guides/setup.md',
        'v1/guides/setup/on-linux.md',
        'v1/guides/setup/on-linux/debian.md',
        'v1/guides/secret.md',
        'v1/api/_settings.yaml',
        'v1/api/_nav.yaml',
        'v1/api/auth.md',
        'v1/refs/shop-api.yaml',
        'v1/refs/shop-api.settings.yaml',
        'v2/_settings.yaml',
        'v2/guides/_settings.yaml',
        'v2/guides/_nav.yaml',
        'v2/guides/next-intro.md',
        'changelogs/news/_settings.yaml',
        'changelogs/news/older.md',
        'changelogs/news/newer.md',
      ].sort(),
    );
    expect(files['developerhub.yaml']).toBe(
      'title: ' + w.project.name + '\nvariables:\n  product: Quire\n  plan:\n    name: Gold\n',
    );
    expect(files['v1/_settings.yaml']).toBe(
      'name: Version 1\npublished: true\ndocumentations:\n  - guides\n  - api\nreferences:\n  - shop-api\n',
    );
    expect(files['v1/api/_settings.yaml']).toBe('title: API\npublished: false\n');
    expect(files['v1/guides/_nav.yaml']).toBe(
      [
        'items:',
        '  - welcome',
        '  - category: Basics',
        '    items:',
        '      - page: setup',
        '        items:',
        '          - page: setup/on-linux',
        '            items:',
        '              - setup/on-linux/debian',
        '      - secret',
        '  - category: Empty',
        '    items: []',
        '',
      ].join('\n'),
    );
    expect(files['v1/guides/setup.md']).toBe(
      '---\ntitle: Set: it "up"\nlisted: true\n---\n\n## Steps\n\nRun it.\n',
    );
    expect(files['v1/guides/secret.md']).toBe('---\ntitle: Secret\nlisted: false\n---\n\nHush.\n');
    // Posts written in the same millisecond get dates apart, in the order they were written.
    const dateOf = (name: string) => /^date: (\S+)$/m.exec(files[name] ?? '')?.[1] ?? '';
    expect(dateOf('changelogs/news/older.md') < dateOf('changelogs/news/newer.md')).toBe(true);
    expect(files['changelogs/news/newer.md']).toMatch(
      /^---\ntitle: Second\ndate: \S+\npublished: false\n---\n\nSoon\.\n$/,
    );
  });

  it('imports back into an empty project as the same project', async () => {
    const w = await createMarkdocProject(t.deps, t.app);
    const archive = await client(t.app, w.key).get('/export?format=markdoc');
    const target = await emptyProject(t.deps);
    const res = await importZip(t.app, target.key, archive.rawPayload);
    expect(res.statusCode).toBe(201);
    const report = res.json<ImportReport & { posts: number }>();
    expect(report).toMatchObject({ documentation: 3, categories: 2, pages: 7, references: 1, posts: 2 });
    // What the import always says of the layout: the title is the platform's site's, posts are redated.
    expect(report.warnings.map((w) => w.message)).toEqual([
      "The project's title belongs to the platform's reader site and has no place in Quire's: left out.",
      'Posts keep their order, not their dates: a post is dated when it is imported.',
      // The fixture's synced-block placeholder names a block Quire never held: it comes back as it was.
      "The synced block 'shared' is not in _synced-blocks/: its placeholder was kept (1 time).",
    ]);

    // Versions, sections, categories, order, nesting, listed and every body, byte for byte.
    expect(await exportFiles(t.app, target.key)).toEqual(await exportFiles(t.app, w.key));
    const before = await pagesByPath(t.app, w.key);
    const after = await pagesByPath(t.app, target.key);
    expect(
      [...after.values()].map((p) => [p.path, p.title, p.listed, p.contentPublished, p.contentDraft]),
    ).toEqual(
      [...before.values()].map((p) => [p.path, p.title, p.listed, p.contentPublished, p.contentDraft]),
    );
    expect(after.get('v1/guides/welcome')?.contentPublished).toBe(EVERY_PLUGIN);

    // The variables and the changelog's posts, newest first, published or not.
    const welcome = after.get('v1/guides/welcome');
    const html = await client(t.app, target.key).get(`/page/${welcome?.id}?format=html`);
    expect(html.json<PageAnswer>().contentPublished).toContain('Text with Quire,');
    const changelog = await t.deps.database.db
      .selectFrom('changelogs')
      .select('id')
      .where('project_id', '=', target.project.id)
      .executeTakeFirstOrThrow();
    const posts = (
      await client(t.app, target.key).get(`/changelog/${changelog.id}/post?format=darkdown`)
    ).json<{
      posts: Array<{ title: string; slug: string; published: boolean; content: string }>;
    }>().posts;
    expect(posts.map((p) => [p.title, p.slug, p.published, p.content])).toEqual([
      ['Second', 'newer', false, 'Soon.'],
      ['First', 'older', true, 'Hello $inline[badge,New,info].'],
    ]);
  });

  it('carries one body per page: the published one, or a never-published page’s draft', async () => {
    const w = await createMarkdocProject(t.deps, t.app);
    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    await t.deps.pages.update(ctx, w.setup.id, { content: 'A pending draft.' });
    const docs = await t.deps.database.db
      .selectFrom('documentation')
      .select('id')
      .where('slug', '=', 'api')
      .where('version_id', '=', w.v1.id)
      .executeTakeFirstOrThrow();
    await t.deps.pages.create(ctx, docs.id, { title: 'Draft only', slug: 'draft-only', content: 'Not yet.' });
    const archive = await client(t.app, w.key).get('/export?format=markdoc');
    const files = await zipTexts(archive.rawPayload);
    expect(files['v1/guides/setup.md']).toContain('## Steps\n\nRun it.');
    expect(files['v1/api/draft-only.md']).toContain('Not yet.');

    // With `published=draft` the import keeps every body a draft, as it does for any archive.
    const target = await emptyProject(t.deps);
    expect((await importZip(t.app, target.key, archive.rawPayload, '?published=draft')).statusCode).toBe(201);
    const pages = await pagesByPath(t.app, target.key);
    expect(pages.get('v1/api/draft-only')).toMatchObject({
      contentDraft: 'Not yet.',
      contentPublished: null,
    });
  });
});
