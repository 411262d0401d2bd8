import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { phpPlugin } from './content/helpers.ts';
import { createKey, createProject, createWorld } from './helpers/factories.ts';
import { multipart, openapiJson } from './helpers/references.ts';
import { createRichProject } from './helpers/rich-project.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { buildZip, zipTexts, type ZipEntrySpec } from './helpers/zip.ts';

const t = useTestApp();

interface Report {
  versions: Array<{ id: number; name: string; slug: string }>;
  documentation: number;
  categories: number;
  pages: number;
  references: number;
  warnings: Array<{ file: string; message: string }>;
}

/** An enterprise project with nothing in it, and a key for everything. */
async function emptyProject() {
  const project = await createProject(t.deps, { plan: 'enterprise' });
  const { key } = await createKey(t.deps, project.id);
  return { project, key };
}

/** POST /import with the archive in the multipart field `file`, as clients send it. */
async function importZip(key: string, zip: Buffer, query = '') {
  const body = await multipart([
    { name: 'file', content: zip, filename: 'export.zip', type: 'application/zip' },
  ]);
  return client(t.app, key).post(`/import${query}`, undefined, body);
}

async function exportFiles(key: string): Promise<Record<string, string>> {
  const res = await client(t.app, key).get('/export');
  expect(res.statusCode).toBe(200);
  const files = await zipTexts(res.rawPayload);
  delete files['manifest.json'];
  return files;
}

/** What a project holds, to prove that a refused import wrote nothing. */
async function contentsOf(key: string) {
  return (await client(t.app, key).get('/all')).json<Record<string, Record<string, unknown>>>();
}

describe('POST /import of a Quire export', () => {
  it('round trips: export → import into an empty project → export gives the same files', async () => {
    const source = await createRichProject(t.deps, t.app);
    const first = await client(t.app, source.key).get('/export');
    const target = await emptyProject();

    const res = await importZip(target.key, first.rawPayload);
    expect(res.statusCode).toBe(201);
    const report = res.json<Report>();
    expect(report).toMatchObject({ documentation: 3, categories: 2, pages: 9, references: 3, warnings: [] });
    expect(report.versions.map((v) => [v.name, v.slug])).toEqual([
      ['Version 1.0', 'v1'],
      ['Next: 2/0', 'next'],
    ]);

    const before = await zipTexts(first.rawPayload);
    delete before['manifest.json'];
    expect(await exportFiles(target.key)).toEqual(before);

    // Through the API too: the page's bodies, its listing and its place.
    const all = await contentsOf(target.key);
    const intro = Object.entries(all.page ?? {}).find(([, p]) => (p as { slug: string }).slug === 'intro');
    const read = await client(t.app, target.key).get(`/page/${intro?.[0] ?? 0}`);
    const original = await client(t.app, source.key).get(`/page/${source.intro.id}`);
    const { id: _a, created: _b, updated: _c, ...imported } = read.json<Record<string, unknown>>();
    const { id: _d, created: _e, updated: _f, ...expected } = original.json<Record<string, unknown>>();
    expect(imported).toEqual(expected);
    // Imported pages are searchable as soon as they are published.
    const search = await client(t.app, target.key).get('/search?query=footnote');
    expect(search.json<{ nbHits: number }>().nbHits).toBeGreaterThan(0);
  });

  it('always adds versions: importing twice numbers the slugs and says so', async () => {
    const source = await createRichProject(t.deps, t.app);
    const zip = (await client(t.app, source.key).get('/export?version_slug=v1')).rawPayload;
    const again = await importZip(source.key, zip);
    expect(again.statusCode).toBe(201);
    const report = again.json<Report>();
    expect(report.versions).toMatchObject([{ name: 'Version 1.0', slug: 'v1-2' }]);
    expect(report.warnings).toEqual([
      { file: 'Version 1.0/', message: "A version already has the slug 'v1': the new one is 'v1-2'." },
    ]);
    const versions = (await client(t.app, source.key).get('/version')).json<Array<{ slug: string }>>();
    expect(versions.map((v) => v.slug)).toEqual(['v1', 'next', 'v1-2']);
  });

  it('with published=draft, every body arrives as a draft and references unpublished', async () => {
    const source = await createRichProject(t.deps, t.app);
    const zip = (await client(t.app, source.key).get('/export?version_slug=v1')).rawPayload;
    const target = await emptyProject();
    expect((await importZip(target.key, zip, '?published=draft')).statusCode).toBe(201);
    const all = await contentsOf(target.key);
    for (const id of Object.keys(all.page ?? {})) {
      const page = (await client(t.app, target.key).get(`/page/${id}`)).json<Record<string, unknown>>();
      expect(page.contentPublished).toBeNull();
      expect(typeof page.contentDraft).toBe('string');
    }
    expect(
      Object.values(all.reference ?? {}).every((r) => (r as { published: boolean }).published === false),
    ).toBe(true);
  });

  it('is the same through bin/quire import, with a progress bar only on a terminal', async () => {
    const source = await createRichProject(t.deps, t.app);
    const zip = (await client(t.app, source.key).get('/export')).rawPayload;
    const target = await emptyProject();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-import-')), 'export.zip');
    fs.writeFileSync(file, zip);

    const run = async (terminal: boolean) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(
        ['import', '--project', String(target.project.id), file],
        { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), stderrIsTerminal: terminal },
        t.deps,
      );
      return { code, stdout, stderr };
    };
    const piped = await run(false);
    expect(piped.code).toBe(0);
    // Not on a terminal (a CI log): plain progress lines, never a bar's carriage returns.
    expect(piped.stderr).not.toContain('\r');
    expect(piped.stderr.trimEnd().split('\n').at(-1)).toBe('importing 12/12 (100%)');
    expect(piped.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(piped.stdout)).toMatchObject({ pages: 9, references: 3, documentation: 3 });

    const watched = await run(true);
    expect(watched.code).toBe(0);
    expect(watched.stderr).toMatch(/^\rimporting \[-{30}\] 0% 0\/12/);
    expect(watched.stderr).toMatch(/\rimporting \[#{30}\] 100% 12\/12\n$/);

    fs.writeFileSync(file, 'not a zip');
    const refused = await run(false);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^quire: The archive cannot be imported: it is not a readable ZIP archive/,
    );
  });
});

describe('POST /import of the platform’s Darkdown exports', () => {
  it('reads numbered files, categories, child folders with or without the number, settings and refs', async () => {
    const welcome = `# Welcome\n\n${phpPlugin('image', { url: 'https://cdn.example.com/a/b.png', caption: 'Écran' })}`;
    const petstore = openapiJson('Petstore');
    const files: ZipEntrySpec[] = [
      { name: 'v2.1/Getting Started/settings.json', data: '{"title":"Getting Started","theme":"dark"}' },
      {
        name: 'v2.1/Getting Started/1 Welcome.md',
        data: `---\ntype: page\ntitle: Welcome\nslug: welcome\nlisted: true\ndescription: First steps\ntags: [a, b]\n---published\n\n${welcome}\n`,
      },
      { name: 'v2.1/Getting Started/2 Setup.md', data: '---\ntype: category\ntitle: Setup\n---\n' },
      {
        name: 'v2.1/Getting Started/3 Install.md',
        data: '---\ntype: page\ntitle: Install\nhidden: true\n---draft\n\nNew steps\n\n---published\n\nOld steps\n',
      },
      {
        name: 'v2.1/Getting Started/Install/1 On Linux.md',
        data: '---\ntitle: On Linux\n---draft\n\napt install\n',
      },
      {
        name: 'v2.1/Getting Started/4 Status.md',
        data: '---\ntype: link\ntitle: Status\nurl: https://status.example.com\n---\n',
      },
      { name: 'v2.1/Getting Started/5 Line.md', data: '---\ntype: separator\n---\n' },
      {
        name: 'v2.1/Getting Started/6 Config.md',
        data: '---\ntitle: Config\nslug: config\n---published\n\nKeys\n',
      },
      {
        name: 'v2.1/Getting Started/6 Config/1 Options.md',
        data: '---\ntitle: Options\n---published\n\nAll of them\n',
      },
      { name: 'v2.1/refs/petstore.json', data: petstore },
    ];
    const target = await emptyProject();
    const res = await importZip(target.key, buildZip(files));
    expect(res.statusCode).toBe(201);
    expect(res.json<Report>()).toEqual({
      versions: [{ id: expect.any(Number) as number, name: 'v2.1', slug: 'v2-1' }],
      documentation: 1,
      categories: 1,
      pages: 5,
      references: 1,
      warnings: [
        {
          file: 'v2.1/Getting Started/settings.json',
          message: "The setting 'theme' has no place in Quire and was left out.",
        },
        {
          file: 'v2.1/Getting Started/1 Welcome.md',
          message: "The front matter key 'description' has no place in Quire and was left out.",
        },
        {
          file: 'v2.1/Getting Started/1 Welcome.md',
          message: "The front matter key 'tags' has no place in Quire and was left out.",
        },
        {
          file: 'v2.1/Getting Started/4 Status.md',
          message: "Quire's indexes have no link entries: it was left out.",
        },
        {
          file: 'v2.1/Getting Started/5 Line.md',
          message: "Quire's indexes have no separator entries: it was left out.",
        },
      ],
    });

    const all = await contentsOf(target.key);
    const bySlug = new Map(
      Object.entries(all.page ?? {}).map(([id, p]) => [(p as { slug: string }).slug, id]),
    );
    const read = async (slug: string) =>
      (await client(t.app, target.key).get(`/page/${bySlug.get(slug) ?? 0}`)).json<Record<string, unknown>>();
    // The body byte for byte, `\/` and `\u00c9` escapes included.
    expect(await read('welcome')).toMatchObject({
      listed: true,
      contentPublished: welcome,
      contentDraft: null,
    });
    expect(await read('install')).toMatchObject({
      listed: false,
      // A part is a newline, the body and a newline (darkdown.md §5): the blank line is the draft's.
      contentDraft: 'New steps\n',
      contentPublished: 'Old steps',
    });
    expect(await read('on-linux')).toMatchObject({ contentDraft: 'apt install', contentPublished: null });

    // Categories and children, as Quire's own export lays them out again.
    expect(Object.keys(await exportFiles(target.key))).toEqual([
      'v2.1/Getting Started/settings.json',
      'v2.1/Getting Started/1 Welcome.md',
      'v2.1/Getting Started/2 Setup.md',
      'v2.1/Getting Started/3 Install.md',
      'v2.1/Getting Started/Install/1 On Linux.md',
      'v2.1/Getting Started/4 Config.md',
      'v2.1/Getting Started/Config/1 Options.md',
      'v2.1/refs/petstore.json',
    ]);
    const reference = Object.values(all.reference ?? {})[0] as { published: boolean };
    expect(reference.published).toBe(true);
  });
});

describe('POST /import refuses what is unsafe, writing nothing', () => {
  const page = (body = 'x') => `---\ntitle: A\n---published\n\n${body}\n`;
  const cases: Array<[string, () => Buffer, RegExp]> = [
    [
      'a zip bomb (one entry inflating 1,000 times)',
      () => buildZip([{ name: 'v/S/1 A.md', data: `${page()}${'a'.repeat(2 * 1024 * 1024)}` }]),
      /inflates \d+ times; at most 200/,
    ],
    [
      'more than 512 MiB once inflated',
      () =>
        buildZip(
          Array.from({ length: 6 }, (_, i) => ({
            name: `v/S/${i + 1}.bin`,
            data: 'x',
            claimedSize: 100 * 1024 * 1024,
            claimedCompressedSize: 1024 * 1024,
          })),
        ),
      /inflate to more than 512 MiB/,
    ],
    [
      'more than 50,000 entries',
      () => buildZip(Array.from({ length: 50_001 }, (_, i) => ({ name: `v/S/${i}.txt`, compress: false }))),
      /50001 entries; at most 50000/,
    ],
    [
      'a name leading out (zip slip)',
      () => buildZip([{ name: 'v/../../evil.md', data: page() }]),
      /leads out of/,
    ],
    ['an absolute path', () => buildZip([{ name: '/etc/evil.md', data: page() }]), /absolute path/],
    ['a drive letter', () => buildZip([{ name: 'C:/evil.md', data: page() }]), /absolute path/],
    ['a backslash', () => buildZip([{ name: 'v\\S\\1 A.md', data: page() }]), /backslash/],
    [
      'a name that is not UTF-8',
      () =>
        buildZip([
          { name: Buffer.from([0x76, 0x2f, 0x53, 0x2f, 0xff, 0xfe, 0x2e, 0x6d, 0x64]), data: page() },
        ]),
      /name is not UTF-8/,
    ],
    [
      'contents that are not UTF-8',
      () => buildZip([{ name: 'v/S/1 A.md', data: Buffer.from([0xff, 0xfe]) }]),
      /is not UTF-8 text/,
    ],
    [
      'bytes that are no archive',
      () => Buffer.from('this is not a zip file at all, though long enough'),
      /not a readable ZIP/,
    ],
    [
      'a truncated archive',
      () => {
        const zip = buildZip([{ name: 'v/S/1 A.md', data: page('y'.repeat(5000)) }]);
        return zip.subarray(0, zip.length - 30);
      },
      /not a readable ZIP/,
    ],
    [
      'huge front matter',
      () => buildZip([{ name: 'v/S/1 A.md', data: `---\n${'key: value\n'.repeat(10_000)}---draft\n\nx\n` }]),
      /front matter is longer than 65536/,
    ],
    [
      'front matter that is not key: value lines',
      () => buildZip([{ name: 'v/S/1 A.md', data: '---\n- a\n---\n' }]),
      /Invalid front matter/,
    ],
    [
      'an archive named inside',
      () => buildZip([{ name: 'v/S/inner.zip', data: 'x' }]),
      /archives inside the archive/,
    ],
    [
      'an archive hidden in a page file',
      () => buildZip([{ name: 'v/S/1 A.md', data: buildZip([{ name: 'a.txt', data: 'a' }]) }]),
      /is itself a ZIP archive/,
    ],
    [
      'the same name twice',
      () =>
        buildZip([
          { name: 'v/S/1 A.md', data: page() },
          { name: 'v/S/1 A.md', data: page() },
        ]),
      /appears twice/,
    ],
    ['no version folder', () => buildZip([{ name: 'readme.txt', data: 'x' }]), /no version folder/],
  ];

  it.each(cases)('%s', async (name, zip, message) => {
    const target = await emptyProject();
    // A bad file that is no danger is skipped unless strict=true, which keeps the all-or-nothing.
    const badFile = /UTF-8|front matter/.test(name) && !/name/.test(name);
    const res = await importZip(target.key, zip(), badFile ? '?strict=true' : '');
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toMatch(message);
    expect(await contentsOf(target.key)).toEqual({ page: {}, documentation: {}, reference: {}, version: {} });
  });

  it('rolls back everything when a late file fails: an invalid definition after the pages', async () => {
    const target = await emptyProject();
    const zip = buildZip([
      { name: 'v/S/1 A.md', data: page() },
      { name: 'v/refs/bad.json', data: '{"openapi": "3.0.3", "info": {"title": "Bad"}}' },
    ]);
    const res = await importZip(target.key, zip, '?strict=true');
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toMatch(/paths|version/);
    expect(await contentsOf(target.key)).toEqual({ page: {}, documentation: {}, reference: {}, version: {} });
  });

  it('answers 413 past 64 MiB, 415 for another type, 400 without a file', async () => {
    const target = await emptyProject();
    const api = client(t.app, target.key);
    const big = await api.post('/import', undefined, {
      payload: Buffer.alloc(64 * 1024 * 1024 + 1),
      headers: { 'content-type': 'application/zip' },
    });
    expect(big.statusCode).toBe(413);
    expectErrorShape(big);
    const wrongType = await api.post('/import', { file: 'x' });
    expect(wrongType.statusCode).toBe(415);
    const none = await api.post('/import', undefined, await multipart([{ name: 'other', content: 'x' }]));
    expect(none.statusCode).toBe(400);
    expect(expectErrorShape(none).message).toMatch(/No archive was uploaded/);
  });

  it('needs project.import and a key that reaches every version; 10 imports an hour', async () => {
    const w = await createWorld(t.deps);
    const zip = buildZip([{ name: 'v/S/1 A.md', data: page() }]);
    const { key: reader } = await createKey(t.deps, w.project.id, { permissions: ['page.read'] });
    expect((await importZip(reader, zip)).statusCode).toBe(403);
    const { key: scoped } = await createKey(t.deps, w.project.id, { versions: [w.version.id] });
    const res = await importZip(scoped, zip);
    expect(res.statusCode).toBe(403);
    expect(expectErrorShape(res).message).toMatch(/every version/);

    const raw = (key: string) =>
      client(t.app, key).post('/import', undefined, {
        payload: zip,
        headers: { 'content-type': 'application/zip' },
      });
    for (let i = 0; i < 10; i++) expect((await raw(w.key)).statusCode).toBe(201);
    const refused = await raw(w.key);
    expect(refused.statusCode).toBe(429);
    expectErrorShape(refused);
  });
});
