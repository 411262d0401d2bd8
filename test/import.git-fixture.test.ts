import { describe, expect, it } from 'vitest';
import { LOGO_SVG, PIXEL_PNG, gitFixture } from './helpers/git-fixture.ts';
import {
  emptyProject,
  exportFiles,
  importZip,
  pagesByPath,
  type ImportReport,
} from './helpers/import-client.ts';
import { client, useTestApp } from './helpers/test-app.ts';
import { buildZip } from './helpers/zip.ts';

const placeholder = (id: string): string =>
  `$plugin[${JSON.stringify({ type: 'synced-block', data: { syncedBlockId: id } })}]$`;

// The whole of a larger repository of the platform's Git format (test/helpers/git-fixture.ts): what
// it becomes, counted and read back byte for byte, then exported to Darkdown and imported again.

const t = useTestApp();

const PIXEL = `data:image/png;base64,${PIXEL_PNG.toString('base64')}`;
const callout = (type: string, title: string, text: string) =>
  `$plugin[${JSON.stringify({ type: 'callout', data: { type, title, text } })}]$`;
const kept = (file: string, what: string) => ({
  file,
  message: `The Markdoc tag {% ${what} %} has no Darkdown equivalent: it was kept as text (1 time).`,
});
const NOTE =
  'images that pages show are held in those pages as data: URLs (at most 256 KiB each); Quire stores no other file: links to them were kept as written.';

const WARNINGS = [
  { file: 'developerhub.yaml', message: "The settings darkMode have no place in Quire's site: left out." },
  {
    file: 'developerhub.yaml',
    message:
      "The project's title, navigation belong to the platform's reader site and have no place in Quire's: left out.",
  },
  {
    file: '_theme/',
    message:
      "head.html: Quire's site has no place for it (its theme is a logo, a colour and a stylesheet): left out.",
  },
  { file: 'assets/', message: `3 file(s): ${NOTE}` },
  {
    file: 'changelogs/releases/',
    message: 'Posts keep their order, not their dates: a post is dated when it is imported.',
  },
  {
    file: 'v1/guides/_settings.yaml',
    message: 'The settings description have no place in Quire and were left out.',
  },
  {
    file: 'v1/guides/support.md',
    message: "The front matter key 'description' has no place in Quire and was left out.",
  },
  { file: 'v1/guides/', message: `1 file(s) that are no pages: ${NOTE}` },
  {
    file: 'v1/guides/_nav.yaml',
    message: "Quire's indexes have no links or icons: 1 link(s) and 1 icon(s) were left out.",
  },
  {
    file: 'v1/refs/store.settings.yaml',
    message: 'The settings showTryItOut have no place in Quire and were left out.',
  },
  {
    file: 'v1/guides/install/linux.md',
    message: 'An image larger than 256 KiB is not held in the page: its link was kept as written (1 time).',
  },
  {
    file: 'v1/guides/install/linux/arm.md',
    message: "The synced block 'gone' is not in _synced-blocks/: its placeholder was kept (1 time).",
  },
  {
    file: 'v1/guides/tags.md',
    message: "The code block setting 'id' has no Darkdown equivalent: it was left out (1 time).",
  },
  kept('v1/guides/tags.md', 'accordion-group'),
  kept('v1/guides/tags.md', 'code-steps'),
  kept('v1/guides/tags.md', 'step'),
  kept('v1/guides/tags.md', 'github-code'),
  kept('v1/guides/tags.md', 'index-list'),
  kept('v1/guides/tags.md', 'if'),
];

const FILES = [
  'Lumen 1/API Docs/1 Authentication.md',
  'Lumen 1/API Docs/2 Errors.md',
  'Lumen 1/API Docs/settings.json',
  'Lumen 1/Guides/1 Welcome.md',
  'Lumen 1/Guides/2 Setting up.md',
  'Lumen 1/Guides/3 Install.md',
  'Lumen 1/Guides/4 Reference.md',
  'Lumen 1/Guides/5 Concepts.md',
  'Lumen 1/Guides/6 Every tag.md',
  'Lumen 1/Guides/7 Support.md',
  'Lumen 1/Guides/8 Hidden.md',
  'Lumen 1/Guides/9 Orphan.md',
  'Lumen 1/Guides/Install/1 On Linux.md',
  'Lumen 1/Guides/Install/2 On Windows.md',
  'Lumen 1/Guides/Install/On Linux/1 On ARM.md',
  'Lumen 1/Guides/settings.json',
  'Lumen 1/refs/store-api.yaml',
  'Lumen 2/Guides/1 Start.md',
  'Lumen 2/Guides/2 Next.md',
  'Lumen 2/Guides/Start/1 Detail.md',
  'Lumen 2/Guides/settings.json',
];

describe('a larger repository of the Git format', () => {
  it('imports whole: counts, places, bodies, theme and variables', async () => {
    const target = await emptyProject(t.deps);
    const res = await importZip(t.app, target.key, buildZip(gitFixture()));
    expect(res.statusCode).toBe(201);
    const report = res.json<ImportReport & { posts: number }>();
    expect(report).toMatchObject({
      versions: [
        { name: 'Lumen 1', slug: 'v1' },
        { name: 'Lumen 2', slug: 'v2' },
      ],
      documentation: 3,
      categories: 2,
      pages: 15,
      references: 1,
      posts: 2,
    });
    expect(report.warnings).toHaveLength(19);
    expect(report.warnings).toEqual(WARNINGS);
    expect(Object.keys(await exportFiles(t.app, target.key)).sort()).toEqual(FILES);

    const pages = await pagesByPath(t.app, target.key);
    expect(pages.size).toBe(15);
    const read = (path: string) => {
      const page = pages.get(path);
      return [page?.title, page?.listed, page?.contentPublished];
    };
    // A synced block holding another, a link from a block's own folder, links to a page whose slug
    // its front matter gives, an image of assets/ held in the page.
    expect(read('v1/guides/welcome')).toEqual([
      'Welcome',
      true,
      [
        'Welcome to %product% (%plan.name% plan).',
        callout('warning', 'Beta', 'This is in beta. Tell [support](/guides/support) what you think.'),
        'Read on.',
        'Start with [installing](/guides/install#before-you-start) or read the [concepts](/guides/ideas).',
        `![Diagram](${PIXEL})`,
      ].join('\n\n'),
    ]);
    expect(read('v1/guides/install')).toEqual([
      'Install',
      true,
      '## Before you start\n\n- Press $inline[key,/] on a new line.\n- Or click $inline[icon,fas fa-plus].\n\nSee [Linux](/guides/linux) and [Windows](/guides/windows#paths).',
    ]);
    expect(read('v1/guides/linux')).toEqual([
      'On Linux',
      true,
      'Back to [install](/guides/install#before-you-start). The large picture: ![Big](../../../assets/huge.png)',
    ]);
    // A block the repository does not hold stays as the placeholder that names it.
    expect(read('v1/guides/arm')).toEqual([
      'On ARM',
      true,
      `Before.\n\n${placeholder('gone')}\n\nUse the arm64 build.`,
    ]);
    expect(read('v1/guides/support')).toEqual([
      'Support',
      true,
      `$plugin[${JSON.stringify({ type: 'image', data: { url: PIXEL, mode: 'responsive', caption: 'The support screen' } })}]$\n\nWrite to support@lumen.test.`,
    ]);
    expect(read('v1/guides/hidden')).toEqual(['Hidden', false, 'Not in the index.']);
    expect(read('v1/guides/orphan')).toEqual(['Orphan', false, 'Named by no navigation.']);
    expect(read('v1/api-docs/errors')).toEqual([
      'Errors',
      true,
      'Errors answer JSON; see [auth](/api-docs/authentication) and [welcome](/guides/welcome).',
    ]);
    expect(read('v2/guides/b-next')).toEqual(['Next', true, 'Back to [the start](/guides/begin#top).']);
    expect(read('v2/guides/detail')).toEqual(['Detail', true, 'Up to [start](/guides/begin).']);

    // No page shows a tag of Markdoc in any format; the variables read as they did.
    const api = client(t.app, target.key);
    for (const page of pages.values()) {
      for (const format of ['darkdown', 'html', 'markdown', 'text']) {
        const body = (await api.get(`/page/${page.id}?format=${format}`)).json<{
          contentPublished: string;
        }>();
        expect(body.contentPublished, `${page.path} as ${format}`).not.toContain('{%');
      }
    }
    const welcome = await api.get(`/page/${pages.get('v1/guides/welcome')?.id}?format=html`);
    const html = welcome.json<{ contentPublished: string }>().contentPublished;
    expect(html).toContain('<p>Welcome to Lumen (Pro plan).</p>');
    expect(html).toContain(`<img src="${PIXEL}" alt="Diagram"`);

    // The theme: colour, logo and stylesheet as the site's settings.
    expect(await t.deps.projects.get(target.project.id)).toMatchObject({
      siteColor: '#1f5fbf',
      siteLogo: `data:image/svg+xml;base64,${Buffer.from(LOGO_SVG).toString('base64')}`,
      siteCss: '.content h2 { letter-spacing: 0.01em; }\n',
      variables: { product: 'Lumen', plan: { name: 'Pro' } },
    });

    // The posts, newest first; the second holds the synced block.
    const changelog = await t.deps.database.db
      .selectFrom('changelogs')
      .select('id')
      .where('project_id', '=', target.project.id)
      .executeTakeFirstOrThrow();
    const posts = await api.get(`/changelog/${changelog.id}/post?format=darkdown`);
    expect(posts.json<{ posts: Array<{ title: string; content: string }> }>().posts).toMatchObject([
      {
        title: 'Second release',
        content: callout(
          'warning',
          'Beta',
          'This is in beta. Tell [support](/guides/support) what you think.',
        ),
      },
      { title: 'First release', content: '- $inline[badge,New,success] %product% ships.' },
    ]);
  });

  it('exports to Darkdown and imports into a fresh project unchanged', async () => {
    const first = await emptyProject(t.deps);
    expect((await importZip(t.app, first.key, buildZip(gitFixture()))).statusCode).toBe(201);
    const exported = await exportFiles(t.app, first.key);
    const archive = await client(t.app, first.key).get('/export?format=darkdown');
    const second = await emptyProject(t.deps);
    const again = await importZip(t.app, second.key, archive.rawPayload);
    expect(again.statusCode).toBe(201);
    expect(again.json<ImportReport>()).toMatchObject({
      documentation: 3,
      categories: 2,
      pages: 15,
      references: 1,
    });
    expect(await exportFiles(t.app, second.key)).toEqual(exported);
    expect(Object.keys(exported).sort()).toEqual(FILES);
  });
});
