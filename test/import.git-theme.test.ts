import { describe, expect, it } from 'vitest';
import { CLI_ACTOR } from '../src/auth/actor.ts';
import { gitPage } from './helpers/git-repo.ts';
import { emptyProject, importZip, pagesByPath, type ImportReport } from './helpers/import-client.ts';
import { useTestApp } from './helpers/test-app.ts';
import { buildZip } from './helpers/zip.ts';

// What the platform's reader customisation becomes (the site's colour, logo and stylesheet, checked
// as an administrator's would be), and synced blocks that cannot be held as they are.

const t = useTestApp();

const PAGE = { 'v1/guide/_settings.yaml': 'title: Guide\n', 'v1/guide/a.md': gitPage({ title: 'A' }, 'A.') };

async function importFiles(files: Array<{ name: string; data: string | Buffer }>) {
  const target = await emptyProject(t.deps);
  const res = await importZip(t.app, target.key, buildZip(files));
  expect(res.statusCode).toBe(201);
  return { target, report: res.json<ImportReport>() };
}

const entries = (files: Record<string, string | Buffer>) =>
  Object.entries(files).map(([name, data]) => ({ name, data }));

describe('the Git format: theme', () => {
  it('refuses what the site refuses, each on its own, with a warning', async () => {
    const hugeSvg = `<svg xmlns="http://www.w3.org/2000/svg">${'<g/>'.repeat(7000)}</svg>`;
    const { target, report } = await importFiles(
      entries({
        ...PAGE,
        'developerhub.yaml': "settings:\n  mainColour: 'ffd700'\n",
        '_theme/custom.css': '@import url("https://fonts.test/a.css");\n',
        '_theme/logo.svg': hugeSvg,
        '_theme/favicon.png': 'PNG',
        '_theme/footer.html': '<p>Footer</p>',
      }),
    );
    expect(report.warnings).toEqual([
      {
        file: '_theme/',
        message:
          "favicon.png, footer.html: Quire's site has no place for them (its theme is a logo, a colour and a stylesheet): left out.",
      },
      {
        file: 'developerhub.yaml',
        message: expect.stringMatching(
          /^Not kept: the site refuses it \(siteColor #ffd700 has a contrast ratio of 1\.\d\d:1 against #ffffff/,
        ) as string,
      },
      {
        file: '_theme/',
        message: expect.stringMatching(
          /^Not kept: the site refuses it \(siteLogo is \d+ characters as a data: URL; at most 32768/,
        ) as string,
      },
      {
        file: '_theme/custom.css',
        message: expect.stringMatching(
          /^Not kept: the site refuses it \(siteCss would make the reader's browser ask another site/,
        ) as string,
      },
    ]);
    expect(await t.deps.projects.get(target.project.id)).toMatchObject({
      siteColor: null,
      siteLogo: null,
      siteCss: null,
    });
  });

  it('replaces the project theme it finds, saying so, and reads a short colour', async () => {
    const target = await emptyProject(t.deps);
    const ctx = await t.deps.projects.contextFor(CLI_ACTOR, { projectId: target.project.id });
    await t.deps.projects.update(ctx, { siteColor: '#123456', siteCss: 'p { margin: 0; }' });
    const res = await importZip(
      t.app,
      target.key,
      buildZip(entries({ ...PAGE, 'developerhub.yaml': "settings:\n  mainColour: '#036'\n" })),
    );
    expect(res.statusCode).toBe(201);
    expect(res.json<ImportReport>().warnings).toEqual([
      { file: '_theme/', message: "The project's theme settings siteColor now hold the imported values." },
    ]);
    expect(await t.deps.projects.get(target.project.id)).toMatchObject({
      siteColor: '#003366',
      siteCss: 'p { margin: 0; }',
    });
  });
});

describe('the Git format: synced blocks', () => {
  it('holds a block inside a plugin, stops a block that holds itself, names a missing one', async () => {
    const { target, report } = await importFiles(
      entries({
        'v1/guide/_settings.yaml': 'title: Guide\n',
        'v1/guide/a.md': gitPage(
          { title: 'A' },
          '{% tabs %}\n{% tab title="One" %}\n{% synced id="tip" /%}\n{% /tab %}\n{% /tabs %}\n\n{% synced id="loop" /%}\n\nInline {% synced id="nowhere" /%} too.',
        ),
        '_synced-blocks/tip.md': gitPage({ title: 'Tip' }, 'A *tip*.'),
        '_synced-blocks/loop.md': gitPage({ title: 'Loop' }, 'Loop {% synced id="loop" /%} end.'),
        '_synced-blocks/notes.txt': 'not a block',
      }),
    );
    expect(report.warnings).toEqual([
      { file: '_synced-blocks/notes.txt', message: 'Not a synced block file (.md): it was ignored.' },
      {
        file: 'v1/guide/a.md',
        message: "The synced block 'loop' holds itself: it was left out there (1 time).",
      },
      {
        file: 'v1/guide/a.md',
        message: "The synced block 'nowhere' is not in _synced-blocks/: its placeholder was kept (1 time).",
      },
    ]);
    const page = (await pagesByPath(t.app, target.key)).get('v1/guide/a');
    expect(page?.contentPublished).toBe(
      `$plugin[${JSON.stringify({ type: 'tabs', data: { tabs: [{ title: 'One', content: 'A *tip*.' }] } })}]$\n\nLoop  end.\n\nInline $plugin[${JSON.stringify({ type: 'synced-block', data: { syncedBlockId: 'nowhere' } })}]$ too.`,
    );
  });
});
