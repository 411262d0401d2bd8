import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVersion, createWorld } from './helpers/factories.ts';
import { PIXEL_PNG, gitFixture } from './helpers/git-fixture.ts';
import { gitPage } from './helpers/git-repo.ts';
import { runQuireSync, useListeningApp } from './helpers/listening-app.ts';
import { client } from './helpers/test-app.ts';

// `quire sync` of a repository in the platform's Git format: recognised by its layout as an import
// recognises it, one version folder pushed over HTTP to a real server, its pages converted as an
// import converts them.

const t = useListeningApp();

function folder(files: Array<{ name: string | Buffer; data?: string | Buffer }>): string {
  const dir = t.tempDir('quire-sync-git-');
  for (const { name, data } of files) {
    const file = path.join(dir, String(name));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, data ?? '');
  }
  return dir;
}

interface Summary {
  ok: boolean;
  dryRun: boolean;
  sections: { created: number; updated: number; unchanged: number };
  categories: { created: number };
  pages: Record<'created' | 'updated' | 'published' | 'deleted' | 'unchanged' | 'notInDir', number>;
  references: { uploaded: number; published: number; unchanged: number };
  requests: { writes: number };
  plan?: Array<Record<string, unknown>>;
  failures: unknown[];
  warnings: Array<{ file: string; message: string }>;
}

async function sync(dir: string, key: string, version: string, ...flags: string[]) {
  const { code, stdout, stderr } = await runQuireSync({ dir, url: t.url, key, version }, flags);
  const lines = stdout.split('\n').filter((l) => l !== '');
  return { code, stderr, summary: (lines.length === 1 ? JSON.parse(lines[0] ?? '') : null) as Summary };
}

async function pagesOf(key: string, versionId: number) {
  const api = client(t.app, key);
  const all = (await api.get(`/all?versionId=${versionId}`)).json<{
    page: Record<string, { path: string; title: string; listed: boolean }>;
  }>();
  const pages: Record<
    string,
    { title: string; listed: boolean; draft: string | null; published: string | null }
  > = {};
  for (const [id, page] of Object.entries(all.page)) {
    const read = (await api.get(`/page/${id}`)).json<{
      contentDraft: string | null;
      contentPublished: string | null;
    }>();
    const { title, listed } = page;
    pages[page.path] = { title, listed, draft: read.contentDraft, published: read.contentPublished };
  }
  return pages;
}

const PIXEL = `data:image/png;base64,${PIXEL_PNG.toString('base64')}`;
const beta = (text: string) =>
  `$plugin[${JSON.stringify({ type: 'callout', data: { type: 'warning', title: 'Beta', text } })}]$`;

describe('quire sync of the Git format', () => {
  it('plans with --dry-run, fills the version, writes nothing the second time, follows a block', async () => {
    // The world's version is `v1`, as the repository's first version folder is named.
    const { key, version } = await createWorld(t.deps);
    const dir = folder(gitFixture());

    const dry = await sync(dir, key, 'v1', '--dry-run');
    expect(dry.code).toBe(0);
    // The world has a Guides section already: its categories are made as its pages need them.
    expect(dry.summary).toMatchObject({
      dryRun: true,
      sections: { created: 1, unchanged: 1 },
      categories: { created: 0 },
      pages: { created: 12 },
      references: { uploaded: 1 },
      requests: { writes: 0 },
    });
    expect(dry.summary.plan).toContainEqual({
      action: 'create',
      type: 'page',
      section: 'guides',
      slug: 'ideas',
      title: 'Concepts',
      file: 'v1/guides/concepts.md',
    });
    expect(dry.summary.warnings).toEqual(
      expect.arrayContaining([
        { file: '.', message: "Only 'v1' was synced; v2 were not." },
        {
          file: 'changelogs/',
          message: 'A sync fills one version: changelogs are not synced (quire import brings them).',
        },
        {
          file: 'developerhub.yaml',
          message:
            "A sync fills one version: the project's variables and theme are not synced (quire import brings them).",
        },
        {
          file: 'v1/guides/install/linux/arm.md',
          message: "The synced block 'gone' is not in _synced-blocks/: its placeholder was kept (1 time).",
        },
      ]),
    );
    expect(dry.summary.warnings.filter((w) => w.file.startsWith('v2/'))).toEqual([]);
    expect(await pagesOf(key, version.id)).toEqual({});

    const first = await sync(dir, key, 'v1');
    expect(first.stderr.split('\n').filter((l) => !/^(reading|writing) \d+\/\d+ \(\d+%\)$/.test(l))).toEqual([
      '',
    ]);
    expect(first.code).toBe(0);
    expect(first.summary).toMatchObject({
      ok: true,
      categories: { created: 2 },
      pages: { created: 12 },
      references: { uploaded: 1 },
    });
    const pages = await pagesOf(key, version.id);
    expect(Object.keys(pages)).toHaveLength(12);
    expect(pages['v1/guides/welcome']?.draft).toBe(
      [
        'Welcome to %product% (%plan.name% plan).',
        beta('This is in beta. Tell [support](/guides/support) what you think.'),
        'Read on.',
        'Start with [installing](/guides/install#before-you-start) or read the [concepts](/guides/ideas).',
        `![Diagram](${PIXEL})`,
      ].join('\n\n'),
    );
    expect(pages['v1/guides/hidden']).toMatchObject({ title: 'Hidden', listed: false });
    expect(pages['v1/api-docs/errors']?.draft).toBe(
      'Errors answer JSON; see [auth](/api-docs/authentication) and [welcome](/guides/welcome).',
    );

    const second = await sync(dir, key, 'v1');
    expect(second.code).toBe(0);
    expect(second.summary).toMatchObject({
      pages: { created: 0, updated: 0, unchanged: 12 },
      references: { uploaded: 0, unchanged: 1 },
      requests: { writes: 0 },
    });

    // A synced block changed: the page that holds it (through another block) changes, no other.
    fs.writeFileSync(
      path.join(dir, '_synced-blocks/beta.md'),
      gitPage({ title: 'Beta' }, '{% callout type="warning" title="Beta" %}\nStill in beta.\n{% /callout %}'),
    );
    const third = await sync(dir, key, 'v1');
    expect(third.summary).toMatchObject({ pages: { created: 0, updated: 1, unchanged: 11 } });
    expect((await pagesOf(key, version.id))['v1/guides/welcome']?.draft).toContain(beta('Still in beta.'));
  });

  it('finds the version folder by its name as a slug, and refuses one it cannot find', async () => {
    const { project, key } = await createWorld(t.deps);
    const version = await createVersion(t.deps, project.id, { name: 'One', slug: 'v1-0', published: true });
    const dir = folder([
      { name: 'v1.0/guide/_settings.yaml', data: 'title: Guide\n' },
      { name: 'v1.0/guide/a.md', data: gitPage({ title: 'A' }, 'See [b](b.md).') },
      { name: 'v1.0/guide/b.md', data: gitPage({ title: 'B' }, 'B.') },
      { name: 'v2.0/guide/settings.yaml', data: 'title: Guide\n' },
    ]);
    const run = await sync(dir, key, 'v1-0', '--publish');
    expect(run.code).toBe(0);
    expect(run.summary).toMatchObject({ sections: { created: 1 }, pages: { created: 2, published: 2 } });
    expect((await pagesOf(key, version.id))['v1-0/guide/a']).toMatchObject({
      draft: null,
      published: 'See [b](/guide/b).',
    });

    // A page file gone: kept without --prune, deleted with it; the link to it now stays as written.
    fs.rmSync(path.join(dir, 'v1.0/guide/b.md'));
    const kept = await sync(dir, key, 'v1-0', '--dry-run');
    expect(kept.summary).toMatchObject({ pages: { updated: 1, deleted: 0, notInDir: 1 } });
    const pruned = await sync(dir, key, 'v1-0', '--prune');
    expect(pruned.summary).toMatchObject({ pages: { updated: 1, deleted: 1, notInDir: 0 } });
    expect(await pagesOf(key, version.id)).toEqual({
      'v1-0/guide/a': { title: 'A', listed: true, draft: 'See [b](b.md).', published: 'See [b](/guide/b).' },
    });

    await createVersion(t.deps, project.id, { name: 'Three', slug: 'v3', published: true });
    const missing = await sync(dir, key, 'v3');
    expect(missing.code).toBe(1);
    expect(missing.summary).toBeNull();
    expect(missing.stderr).toBe(
      "quire: sync: no version folder is named 'v3' (the folder has 'v1.0', 'v2.0')\n",
    );
  });
});
