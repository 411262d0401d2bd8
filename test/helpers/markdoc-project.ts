import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../src/deps.ts';
import { page, plugin } from '../content/helpers.ts';
import {
  adminContext,
  createCategory,
  createDocumentation,
  createKey,
  createProject,
  createVersion,
} from './factories.ts';
import { openapiYaml, upload } from './references.ts';
import { client } from './test-app.ts';

/** Every plugin and token in the one-line form the Git import writes, and links between pages. */
export const EVERY_PLUGIN = [
  '## Every plugin',
  'Text with %product%, $inline[badge,New,success], $inline[icon,fas fa-cog], $inline[key,Ctrl] and $inline[glossary,CDN].',
  'See [setup](/guides/setup#steps), [auto$](/guides/on-linux) and [out](https://example.test/).',
  plugin('callout', { type: 'warning', title: 'Careful', text: 'A *callout* with\n\n- a list' }),
  plugin('image', { url: 'https://img.test/a.png', mode: '300', width: 600, height: 400, caption: 'Cap' }),
  plugin('image', { url: 'https://img.test/b.png', mode: 'responsive', caption: null }),
  plugin('custom-html', { contents: '<div class="x">raw</div>' }),
  plugin('video', { provider: 'youtube', videoId: 'abc' }),
  plugin('synced-block', { syncedBlockId: 'shared' }),
  plugin('code-block', { languageBlocks: [{ language: 'bash', code: 'echo "$HOME"' }] }),
  plugin('code-block', {
    languageBlocks: [
      { language: 'js', code: 'let a;', title: 'a.js' },
      { language: 'none', code: 'plain' },
    ],
  }),
  plugin('tabs', {
    tabs: [
      { title: 'One', content: 'first' },
      { title: 'Two', content: plugin('callout', { type: 'info', title: '', text: 'nested' }) },
    ],
  }),
  plugin('cards', { view: 'grid', cards: [{ title: 'Setup', text: 'Go', link: '/guides/setup' }] }),
  plugin('accordion', { title: 'More', open: false, content: 'hidden *text*' }),
  plugin('table', {
    cols: 2,
    rows: 2,
    widths: [0, 120],
    contents: [
      ['Name', 'Value'],
      ['**a**', '`b`'],
    ],
  }),
  plugin('poll', { question: 'Kept as text?' }),
  '```\nplain fence\n```',
].join('\n\n');

/**
 * A project the Git layout carries whole: two versions, sections published and not, a category,
 * nested and unlisted pages (every one published, none with a pending draft), a reference, a
 * changelog with two posts, and variables.
 */
export async function createMarkdocProject(deps: Deps, app: FastifyInstance) {
  const project = await createProject(deps, { plan: 'enterprise' });
  await deps.database.db
    .updateTable('projects')
    .set({ variables: JSON.stringify({ product: 'Quire', plan: { name: 'Gold' } }) })
    .where('id', '=', project.id)
    .execute();
  const { key } = await createKey(deps, project.id);
  const ctx = await adminContext(deps, { projectId: project.id });
  const v1 = await createVersion(deps, project.id, { name: 'Version 1', slug: 'v1', published: true });
  const v2 = await createVersion(deps, project.id, { name: 'Next', slug: 'v2', published: false });
  const guides = await createDocumentation(deps, v1.id, { title: 'Guides', slug: 'guides', published: true });
  const api = await createDocumentation(deps, v1.id, { title: 'API', slug: 'api', published: false });
  const next = await createDocumentation(deps, v2.id, { title: 'Guides', slug: 'guides', published: true });

  const published = async (
    documentationId: number,
    input: { title: string; slug?: string; content: string; categoryTitle?: string },
    at?: { parentId: number; categoryId: number | null },
  ) => {
    const created = await deps.pages.create(ctx, documentationId, input, at);
    return deps.pages.publish(ctx, created.id);
  };
  const welcome = await published(guides.id, { title: 'Welcome', slug: 'welcome', content: EVERY_PLUGIN });
  await createCategory(deps, guides.id, 'Basics');
  const setup = await published(guides.id, {
    title: 'Set: it "up"',
    slug: 'setup',
    content: '## Steps\n\nRun it.',
    categoryTitle: 'Basics',
  });
  const linux = await published(
    guides.id,
    { title: 'On Linux', slug: 'on-linux', content: 'Back to [setup](/guides/setup) and [auth](/api/auth).' },
    { parentId: setup.id, categoryId: null },
  );
  await published(
    guides.id,
    { title: 'Debian', slug: 'debian', content: 'Up to [auto$](/guides/on-linux).' },
    { parentId: linux.id, categoryId: null },
  );
  const secret = await published(guides.id, { title: 'Secret', slug: 'secret', content: 'Hush.' });
  await deps.pages.update(ctx, secret.id, { listed: false });
  await createCategory(deps, guides.id, 'Empty');
  await published(api.id, { title: 'Auth', slug: 'auth', content: page('Keys.').trimEnd() });
  await published(next.id, { title: 'Next intro', slug: 'next-intro', content: 'Next.' });

  const reference = await upload(app, key, v1.id, openapiYaml('Shop API'));
  const changelog = await deps.changelogs.create(ctx, { title: 'News' });
  const api2 = client(app, key);
  for (const post of [
    { title: 'First', slug: 'older', published: true, content: 'Hello $inline[badge,New,info].' },
    { title: 'Second', slug: 'newer', published: false, content: 'Soon.' },
  ])
    await api2.post(`/changelog/${changelog.id}/post`, post);
  return { project, key, v1, v2, welcome, setup, linux, secret, changelog, reference: reference.json() };
}
