import { describe, expect, it } from 'vitest';
import { plugin } from './content/helpers.ts';
import { gitPage, gitRepo } from './helpers/git-repo.ts';
import {
  emptyProject,
  exportFiles,
  importZip,
  pagesByPath,
  type ImportReport,
} from './helpers/import-client.ts';
import { ASSETS_NOTE } from '../src/modules/import/import.git-bodies.ts';
import { client, useTestApp } from './helpers/test-app.ts';
import { buildZip } from './helpers/zip.ts';

// The platform's current Git format (0025-platform-git-format.md): each file of its layout, read into
// versions, sections, categories, pages, references, changelog posts and variables. Places are
// checked through Quire's own export of what was imported (numbered files, category entries, folders).

const t = useTestApp();

const DEFINITION = 'openapi: 3.0.0\ninfo:\n  title: Shop API\n  version: 1.0.0\npaths: {}\n';

async function importRepo(files: Record<string, string>) {
  const target = await emptyProject(t.deps);
  const res = await importZip(t.app, target.key, buildZip(gitRepo(files)));
  expect(res.statusCode).toBe(201);
  return { target, report: res.json<ImportReport & { posts: number }>() };
}

/** A page holding every tag of the format, and what each becomes. */
const EVERY_TAG = `Intro {% badge text="New" type="success" /%} {% badge text="Plain" /%} {% icon classes="fas fa-cog" /%} {% key key="Ctrl" /%} {% glossary term="CDN" /%} {% inline-image url="pic.png" width="88" /%} and \`{% icon classes="x" /%}\` stays code.

{% callout type="warning" title="Careful" %}
Mind **this**.
{% /callout %}

{% image url="https://img.test/a.png" width=464 %}
A caption
{% /image %}

{% image url="https://img.test/b.png" /%}

{% html %}
<div class="promo">Hi</div>
{% /html %}

{% video provider="loom" videoId="abc123" /%}

{% synced id="shared-note" /%}

{% code %}
\`\`\`js {% title="a.js" %}
let a = 1;
\`\`\`

\`\`\`python
b = 2
\`\`\`
{% /code %}

\`\`\`bash {% title="run.sh" highlightLines="1" %}
echo hi
\`\`\`

\`\`\`
plain fence
\`\`\`

{% tabs %}
{% tab title="One" %}
First tab.
{% /tab %}
{% tab title="Two" %}
Second tab.
{% /tab %}
{% /tabs %}

{% cards view="list" %}
{% card title="Guide" text="Read it" link="other.md" /%}
{% /cards %}

{% accordion-group %}
{% accordion title="Why?" open=true %}
Because.
{% /accordion %}
{% /accordion-group %}

{% table layout="auto" %}
{% row %}
{% cell header=true colwidth=[120] %}
Name
{% /cell %}
{% cell header=true %}
Type
{% /cell %}
{% /row %}
{% row %}
{% cell %}
id
{% /cell %}
{% cell %}
\`int\`
{% /cell %}
{% /row %}
{% /table %}

{% github-code url="https://github.test/a/b.c" /%}

{% if $plan %}
Only some see this.
{% /if %}`;

const EVERY_TAG_DARKDOWN = [
  'Intro $inline[badge,New,success] $inline[badge,Plain,info] $inline[icon,fas fa-cog] $inline[key,Ctrl] $inline[glossary,CDN] ![](<pic.png>) and `{% icon classes="x" /%}` stays code.',
  plugin('callout', { type: 'warning', title: 'Careful', text: 'Mind **this**.' }),
  plugin('image', { url: 'https://img.test/a.png', mode: 'responsive', width: 464, caption: 'A caption' }),
  plugin('image', { url: 'https://img.test/b.png', mode: 'responsive', caption: null }),
  plugin('custom-html', { contents: '<div class="promo">Hi</div>' }),
  plugin('video', { provider: 'loom', videoId: 'abc123' }),
  'Shared **words**.',
  plugin('code-block', {
    languageBlocks: [
      { language: 'js', code: 'let a = 1;', title: 'a.js' },
      { language: 'python', code: 'b = 2' },
    ],
  }),
  plugin('code-block', { languageBlocks: [{ language: 'bash', code: 'echo hi', title: 'run.sh' }] }),
  '```\nplain fence\n```',
  plugin('tabs', {
    tabs: [
      { title: 'One', content: 'First tab.' },
      { title: 'Two', content: 'Second tab.' },
    ],
  }),
  plugin('cards', { view: 'list', cards: [{ title: 'Guide', text: 'Read it', link: '/guide/other' }] }),
  plugin('accordion', { title: 'Why?', open: true, content: 'Because.' }),
  plugin('table', {
    cols: 2,
    rows: 2,
    widths: [120, 0],
    contents: [
      ['Name', 'Type'],
      ['id', '`int`'],
    ],
  }),
  '<https://github.test/a/b.c>',
  'Only some see this.',
].join('\n\n');

const SHARED_NOTE = { '_synced-blocks/shared-note.md': gitPage({ title: 'Shared' }, 'Shared **words**.') };

const layout = {
  'developerhub.yaml':
    "title: Acme Docs\nvariables:\n  product: Acme\n  plan:\n    name: Gold\nsettings:\n  mainColour: '112233'\nnavigation:\n  links:\n    - title: Home\n      url: https://acme.test\n",
  'v2/_settings.yaml':
    'name: Version Two\npublished: true\ndocumentations:\n  - handbook\n  - basics\nreferences:\n  - shop\n',
  'v2/basics/_settings.yaml': "title: 'The Basics'\npublished: false\n",
  'v2/basics/hello.md': gitPage({ title: 'Hello' }, 'Hi from %product%.'),
  'v2/handbook/_settings.yaml': "title: 'Handbook'\npublished: true\ndescription: 'About it'\n",
  'v2/handbook/_nav.yaml': [
    'items:',
    '  - page: welcome',
    '    icon: house',
    "  - category: 'Getting Going'",
    '    items:',
    '      - page: install',
    '        items:',
    '          - install/on-linux',
    '          - link:',
    '              title: Elsewhere',
    '              url: /basics/hello',
    '      - page: secret',
    '      - page: missing',
    '',
  ].join('\n'),
  'v2/handbook/welcome.md': gitPage(
    {
      type: 'page',
      title: 'Welcome',
      listed: true,
      description: '',
      tags: 'intro',
      index_title: 'Welcome',
      hidden: false,
      keywords: '',
    },
    'See [installing](install.md#steps) and [Linux](install/on-linux.md).',
  ),
  'v2/handbook/install.md': gitPage({ title: "'Install: it''s quick'" }, '## Steps\n\nRun it.'),
  'v2/handbook/install/on-linux.md': gitPage({ title: 'On Linux' }, 'Back to [install](../install.md).'),
  'v2/handbook/secret.md': gitPage({ title: 'Secret', hidden: true }, 'Hush.'),
  'v2/handbook/orphan.md': gitPage({ title: 'Orphan' }, 'Not in the navigation.'),
  'v2/handbook/diagram.png': 'PNG',
  'v2/refs/shop.yaml': DEFINITION,
  'v2/refs/shop.settings.yaml': 'title: Shop\npublished: true\ndownloadable: true\n',
  'changelogs/news/_settings.yaml': "title: 'News'\ndescription: 'What changed'\n",
  'changelogs/news/2-may.md': gitPage(
    { title: "'Second'", date: "'2024-05-02 10:00:00'", published: true },
    '- {% badge text="New" type="success" /%} A thing.',
  ),
  'changelogs/news/1-may.md': gitPage(
    { title: "'First'", date: "'2024-05-01 10:00:00'", published: true },
    'Hello.',
  ),
  '_theme/custom.css': 'body { color: red; }',
  'assets/logo.png': 'PNG',
  '_synced-blocks/note.md': gitPage({ title: "'Note'" }, '{% callout %}\nShared.\n{% /callout %}'),
  '.gitignore': '.idea\n',
};

describe('POST /import of the Git format', () => {
  it('reads every file of the layout into versions, sections, pages, references and posts', async () => {
    const { target, report } = await importRepo(layout);
    expect(report).toMatchObject({
      versions: [{ name: 'Version Two', slug: 'v2' }],
      documentation: 2,
      categories: 1,
      pages: 6,
      references: 1,
      posts: 2,
    });
    expect(report.warnings).toEqual([
      {
        file: 'developerhub.yaml',
        message:
          "The project's title, navigation belong to the platform's reader site and have no place in Quire's: left out.",
      },
      { file: 'assets/', message: `1 file(s): ${ASSETS_NOTE}` },
      {
        file: 'changelogs/news/_settings.yaml',
        message: 'The settings description have no place in Quire and were left out.',
      },
      {
        file: 'changelogs/news/',
        message: 'Posts keep their order, not their dates: a post is dated when it is imported.',
      },
      {
        file: 'v2/handbook/_settings.yaml',
        message: 'The settings description have no place in Quire and were left out.',
      },
      {
        file: 'v2/handbook/welcome.md',
        message: "The front matter key 'tags' has no place in Quire and was left out.",
      },
      {
        file: 'v2/handbook/',
        message: `1 file(s) that are no pages: ${ASSETS_NOTE}`,
      },
      {
        file: 'v2/handbook/_nav.yaml',
        message: "Quire's indexes have no links or icons: 1 link(s) and 1 icon(s) were left out.",
      },
      { file: 'v2/handbook/_nav.yaml', message: "The navigation names 'missing', which has no page file." },
      {
        file: 'v2/refs/shop.settings.yaml',
        message: 'The settings downloadable have no place in Quire and were left out.',
      },
    ]);

    // Order and places: sections as the version lists them, pages as the navigation says, the
    // page it does not name kept unlisted at the end.
    expect(Object.keys(await exportFiles(t.app, target.key)).sort()).toEqual(
      [
        'Version Two/Handbook/1 Welcome.md',
        'Version Two/Handbook/2 Getting Going.md',
        "Version Two/Handbook/3 Install- it's quick.md",
        "Version Two/Handbook/Install- it's quick/1 On Linux.md",
        'Version Two/Handbook/4 Secret.md',
        'Version Two/Handbook/5 Orphan.md',
        'Version Two/Handbook/settings.json',
        'Version Two/The Basics/1 Hello.md',
        'Version Two/The Basics/settings.json',
        'Version Two/refs/shop-api.yaml',
      ].sort(),
    );

    const pages = await pagesByPath(t.app, target.key);
    expect([...pages.values()].map((p) => [p.path, p.title, p.listed, p.contentPublished])).toEqual(
      expect.arrayContaining([
        [
          'v2/handbook/welcome',
          'Welcome',
          true,
          'See [installing](/handbook/install#steps) and [Linux](/handbook/on-linux).',
        ],
        ['v2/handbook/install', "Install: it's quick", true, '## Steps\n\nRun it.'],
        ['v2/handbook/on-linux', 'On Linux', true, 'Back to [install](/handbook/install).'],
        ['v2/handbook/secret', 'Secret', false, 'Hush.'],
        ['v2/handbook/orphan', 'Orphan', false, 'Not in the navigation.'],
        ['v2/basics/hello', 'Hello', true, 'Hi from %product%.'],
      ]),
    );
    expect(pages.size).toBe(6);

    // `%product%` reads the imported variable.
    const hello = pages.get('v2/basics/hello');
    const html = await client(t.app, target.key).get(`/page/${hello?.id}?format=html`);
    expect(html.json<{ contentPublished: string }>().contentPublished).toBe('<p>Hi from Acme.</p>\n');

    // The posts, newest first, their bodies Darkdown.
    const changelog = await t.deps.database.db
      .selectFrom('changelogs')
      .select(['id', 'title', 'slug'])
      .where('project_id', '=', target.project.id)
      .executeTakeFirstOrThrow();
    expect(changelog).toMatchObject({ title: 'News', slug: 'news' });
    const posts = await client(t.app, target.key).get(`/changelog/${changelog.id}/post?format=darkdown`);
    expect(
      posts.json<{ posts: Array<{ title: string; slug: string; content: string }> }>().posts,
    ).toMatchObject([
      { title: 'Second', slug: '2-may', content: '- $inline[badge,New,success] A thing.' },
      { title: 'First', slug: '1-may', content: 'Hello.' },
    ]);
  });

  it('reads older repositories: settings.yaml, no navigation, slugs in the front matter', async () => {
    const { target, report } = await importRepo({
      'v1/_settings.yaml': 'name: v1\n',
      'v1/guide/settings.yaml': 'title: Guide\n',
      'v1/guide/b-second.md': gitPage({ title: 'Second', slug: 'two' }, 'B.'),
      'v1/guide/a-first.md': gitPage({ title: 'First', listed: false }, 'A.'),
      'v1/guide/a-first/child.md': gitPage({ title: 'Child', slug: 'kid' }, 'C [up](../a-first.md).'),
    });
    expect(report).toMatchObject({ documentation: 1, categories: 0, pages: 3, references: 0, warnings: [] });
    expect(Object.keys(await exportFiles(t.app, target.key)).sort()).toEqual([
      'v1/Guide/1 First.md',
      'v1/Guide/2 Second.md',
      'v1/Guide/First/1 Child.md',
      'v1/Guide/settings.json',
    ]);
    const pages = await pagesByPath(t.app, target.key);
    expect(pages.get('v1/guide/a-first')).toMatchObject({
      title: 'First',
      listed: false,
      contentPublished: 'A.',
    });
    expect(pages.get('v1/guide/two')).toMatchObject({
      title: 'Second',
      listed: true,
      contentPublished: 'B.',
    });
    expect(pages.get('v1/guide/kid')).toMatchObject({ contentPublished: 'C [up](/guide/a-first).' });
  });

  it('turns each tag into its plugin or token, and keeps the others as text with a count', async () => {
    const { target, report } = await importRepo({
      'v1/guide/_settings.yaml': 'title: Guide\n',
      'v1/guide/tags.md': gitPage({ title: 'Tags' }, EVERY_TAG),
      'v1/guide/other.md': gitPage({ title: 'Other' }, 'O.'),
      ...SHARED_NOTE,
    });
    const kept = (tag: string) => ({
      file: 'v1/guide/tags.md',
      message: `The Markdoc tag {% ${tag} %} has no Darkdown equivalent: it was kept as text (1 time).`,
    });
    expect(report.warnings).toEqual([
      {
        file: 'v1/guide/tags.md',
        message:
          "The code block setting 'highlightLines' has no Darkdown equivalent: it was left out (1 time).",
      },
      kept('accordion-group'),
      kept('github-code'),
      kept('if'),
    ]);
    const pages = await pagesByPath(t.app, target.key);
    expect(pages.get('v1/guide/tags')?.contentPublished).toBe(EVERY_TAG_DARKDOWN);
  });

  it('exports to Darkdown and imports back to the same files', async () => {
    const { target } = await importRepo({
      ...layout,
      'v2/handbook/tags.md': gitPage({ title: 'Tags' }, EVERY_TAG),
      'v2/handbook/other.md': gitPage({ title: 'Other' }, 'O.'),
      ...SHARED_NOTE,
    });
    const first = await exportFiles(t.app, target.key);
    const archive = await client(t.app, target.key).get('/export?format=darkdown');
    const again = await emptyProject(t.deps);
    expect((await importZip(t.app, again.key, archive.rawPayload)).statusCode).toBe(201);
    expect(await exportFiles(t.app, again.key)).toEqual(first);
    // The tags page travelled as Darkdown (its card now links within this section).
    const tags = EVERY_TAG_DARKDOWN.replace('/guide/other', '/handbook/other');
    expect(Object.values(first).join('\n')).toContain(`---published\n\n${tags}\n`);
  });
});
