import type { Deps } from '../../src/deps.ts';
import { page, phpPlugin, plugin } from '../content/helpers.ts';
import {
  adminContext,
  createCategory,
  createDocumentation,
  createKey,
  createProject,
  createVersion,
} from './factories.ts';
import { openapiJson, openapiYaml, upload } from './references.ts';
import type { FastifyInstance } from 'fastify';

/** A page using every Darkdown construct (darkdown.md §2–§3), with `\/` JSON as the PHP exporter wrote it. */
export const EVERY_CONSTRUCT = page(
  '# Every construct',
  'Text with **bold**, _emphasis_, `code`, a [link](https://example.com/a), %product% and %missing%.',
  '## Blocks',
  plugin('callout', { type: 'warning', title: 'Careful', text: 'A *callout* with\n\n- a list' }),
  plugin('code-block', {
    languageBlocks: [
      { language: 'bash', code: 'echo "$HOME"', title: 'Shell' },
      { language: 'js', code: 'console.log("]$")' },
    ],
  }),
  phpPlugin('image', {
    url: 'https://cdn.example.com/a/b.png',
    mode: '300',
    width: 600,
    height: 400,
    caption: 'A *caption* é',
  }),
  plugin('custom-html', { contents: '<div class="x">raw</div>' }),
  plugin('video', { provider: 'youtube', videoId: 'dQw4w9WgXcQ' }),
  plugin('synced-block', { syncedBlockId: 'abc' }),
  plugin(
    'table',
    {
      cols: 2,
      rows: 2,
      widths: [0, 120],
      contents: [
        ['Name', 'Value'],
        ['**a**', '`b`'],
      ],
    },
    true,
  ),
  plugin('tabs', {
    tabs: [
      { title: 'One', content: 'first' },
      { title: 'Two', content: 'second' },
    ],
  }),
  plugin('cards', { view: 'grid', cards: [{ title: 'Card', text: 'Go', link: '/guides/intro' }] }),
  plugin('accordion', { title: 'More', open: false, content: 'hidden *text*' }),
  plugin('unknown-type', { anything: true }),
  '$plugin[{"type": "callout", broken json]$',
  '## Inline',
  'A $inline[badge,New,success] badge, $inline[icon,fas fa-truck] icon, $inline[key,Ctrl] and $inline[glossary,API].',
  'See [auto$](/guides/intro#blocks) and [auto$](/guides/nowhere).',
  '- [x] done\n- [ ] to do',
  'A footnote[^1].\n\n[^1]: The note.',
  '![Logo](asset:logo)',
  '<!-- asset:logo=https://cdn.example.com/logo.png -->',
);

/**
 * A project with two versions; sections with categories, child pages, pages titled alike and titles
 * that are not safe file names; drafts over published bodies; references in JSON and YAML (one with
 * a draft pending). Everything an export has to lay out.
 */
export async function createRichProject(deps: Deps, app: FastifyInstance) {
  const project = await createProject(deps, { plan: 'enterprise', access: 'public' });
  // Variables have no API or command yet: set as an operator would, in the table.
  await deps.database.db
    .updateTable('projects')
    .set({ variables: JSON.stringify({ product: 'Quire' }) })
    .where('id', '=', project.id)
    .execute();
  const { key } = await createKey(deps, project.id);
  const v1 = await createVersion(deps, project.id, { name: 'Version 1.0', slug: 'v1', published: true });
  const v2 = await createVersion(deps, project.id, { name: 'Next: 2/0', slug: 'next', published: false });
  const guides = await createDocumentation(deps, v1.id, { title: 'Guides', slug: 'guides', published: true });
  const refsSection = await createDocumentation(deps, v1.id, {
    title: 'refs',
    slug: 'refs-section',
    published: false,
  });
  const other = await createDocumentation(deps, v2.id, { title: 'Guides', slug: 'guides', published: true });
  const ctx = await adminContext(deps, { projectId: project.id });

  const intro = await deps.pages.create(ctx, guides.id, {
    title: 'Intro',
    slug: 'intro',
    content: EVERY_CONSTRUCT,
  });
  await deps.pages.publish(ctx, intro.id);
  await deps.pages.update(ctx, intro.id, { content: `${EVERY_CONSTRUCT}\nA pending draft line.\n` });
  await createCategory(deps, guides.id, 'Basics');
  const setup = await deps.pages.create(ctx, guides.id, {
    title: 'Setup',
    content: 'Setup body',
    categoryTitle: 'Basics',
  });
  await deps.pages.publish(ctx, setup.id);
  const linux = await deps.pages.create(
    ctx,
    guides.id,
    { title: 'Linux', content: 'Linux body' },
    { parentId: setup.id, categoryId: null },
  );
  await deps.pages.create(
    ctx,
    guides.id,
    { title: 'Debian', content: 'Debian *draft*' },
    { parentId: linux.id, categoryId: null },
  );
  const setup2 = await deps.pages.create(ctx, guides.id, {
    title: 'Setup',
    content: 'Second setup',
    categoryTitle: 'Basics',
  });
  await deps.pages.create(
    ctx,
    guides.id,
    { title: 'Mac', content: 'Mac body' },
    { parentId: setup2.id, categoryId: null },
  );
  const unsafe = await deps.pages.create(ctx, guides.id, {
    title: 'A/B: c? <d>',
    content: 'unsafe',
    categoryTitle: 'Basics',
  });
  await deps.pages.publish(ctx, unsafe.id);
  await deps.pages.update(ctx, unsafe.id, { listed: false });
  await createCategory(deps, guides.id, 'Empty category');
  await deps.pages.create(ctx, refsSection.id, { title: 'In refs', content: 'body' });
  await deps.pages.create(ctx, other.id, { title: 'Next intro', content: 'next' });

  const json = openapiJson('Pets API');
  const yaml = openapiYaml('Orders API');
  const pets = (await upload(app, key, v1.id, json, { as: 'application/json' })).json<{
    id: number;
    slug: string;
  }>();
  const orders = (await upload(app, key, v1.id, yaml)).json<{ id: number; slug: string }>();
  await upload(app, key, v1.id, openapiYaml('Pets API'), { publish: false });
  const drafts = (
    await upload(app, key, v2.id, openapiJson('Draft API'), { publish: false, as: 'application/json' })
  ).json<{ slug: string }>();
  return {
    project,
    key,
    v1,
    v2,
    guides,
    refsSection,
    other,
    intro,
    setup,
    linux,
    unsafe,
    json,
    yaml,
    pets,
    orders,
    drafts,
  };
}
