import { describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import {
  emptyProject,
  exportFiles,
  importZip,
  pagesByPath,
  type ImportReport,
} from './helpers/import-client.ts';
import { client, useTestApp } from './helpers/test-app.ts';
import { buildZip } from './helpers/zip.ts';

// Export and import are inverses (0011-export-import.md): for a project made from a messy real
// export, and for titles Quire's own front matter must quote to read back the same.

const t = useTestApp();

/** Imports `zip` into a fresh project and gives its export, and the answer of the import. */
async function importThenExport(zip: Buffer) {
  const target = await emptyProject(t.deps);
  const res = await importZip(t.app, target.key, zip);
  expect(res.statusCode).toBe(201);
  return { target, report: res.json<ImportReport>(), files: await exportFiles(t.app, target.key) };
}

const toZip = (files: Record<string, string>) =>
  buildZip(Object.entries(files).map(([name, data]) => ({ name, data })));

describe('export → import → export', () => {
  it('gives the same files for a project imported from a real export with every quirk', async () => {
    const platform = buildZip([
      {
        name: 'Main\nline/Start/1 RAK2245\nPi Hat.md',
        data: '---\ntitle: RAK2245\nPi Hat: LoRa\n---draft\n\nD\n---published\n\nP\n\n',
      },
      {
        name: 'Main\nline/Start/RAK2245\nPi Hat/1 Setup.md',
        data: '---\ntitle: Setup\nslug: setup\n---published\n\n# x\n',
      },
      { name: 'Main\nline/Start/2 Guides.md', data: "---\ntype: category\ntitle: 'Guides: all'\n---\n" },
      { name: 'Main\nline/Start/3 Setup.md', data: '---\ntitle: Setup\nslug: setup\n---draft\n\n\n' },
      { name: 'Main\nline/Start/4 Bad.md', data: '---\nno key here\n---draft\n\nx\n' },
      {
        name: 'Main\nline/Start/5 Quote.md',
        data: `---\ntitle: "#1 'best' & *only*"\nlisted: true\n---published\n\nq`,
      },
    ]);
    const first = await importThenExport(platform);
    expect(first.report).toMatchObject({ pages: 4, categories: 1 });
    const second = await importThenExport(toZip(first.files));
    expect(second.report.warnings).toEqual([]);
    expect(second.files).toEqual(first.files);
    // And what the files say reached the pages.
    const pages = await pagesByPath(t.app, second.target.key);
    expect(pages.get('main-line/start/rak2245-pi-hat-lora')).toMatchObject({
      title: 'RAK2245 Pi Hat: LoRa',
      contentDraft: 'D',
      contentPublished: 'P\n',
    });
    expect(pages.get('main-line/start/setup-2')).toMatchObject({ title: 'Setup', contentDraft: '' });
    expect(pages.get('main-line/start/1-best-only')).toMatchObject({
      title: "#1 'best' & *only*",
      listed: true,
      contentPublished: 'q',
    });
  });

  it('keeps awkward titles exactly: colons, quotes, #, spaces around, a line break', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const titles = [
      'A: B',
      `It's "q"`,
      '"Quoted"',
      "'s'",
      '# hash',
      ' lead',
      'trail ',
      'a\nb',
      'true',
      '|-',
      'x #y',
    ];
    for (const [i, title] of titles.entries()) {
      const res = await api.post(`/documentation/${w.documentation.id}/page`, {
        title,
        slug: `p${i}`,
        content: `Body ${i}\n`,
      });
      expect(res.statusCode).toBe(200);
    }
    const source = await exportFiles(t.app, w.key);
    // Whole, manifest and all: Quire's own export keeps its titles as they were stored.
    const copy = await importThenExport((await api.get('/export?format=darkdown')).rawPayload);
    expect(copy.report.warnings).toEqual([]);
    expect(copy.files).toEqual(source);
    const pages = await pagesByPath(t.app, copy.target.key);
    for (const [i, title] of titles.entries()) {
      expect(pages.get(`v1/guides/p${i}`)).toMatchObject({ title, contentDraft: `Body ${i}\n` });
    }
  });

  it('reads an export of format version 1 as it always read: its own quoting and blank line', async () => {
    const manifest = (formatVersion: number) =>
      JSON.stringify({ kind: 'quire-export', formatVersion, versions: [{ folder: 'v1', name: 'v1' }] });
    // That writer quoted with YAML and put a blank line of its own before `---published`.
    const page = '---\ntype: page\ntitle: "A: B"\nslug: a\n---draft\n\nD\n\n---published\n\nP\n';
    const old = await importThenExport(toZip({ 'manifest.json': manifest(1), 'v1/S/1 A.md': page }));
    const oldPages = await pagesByPath(t.app, old.target.key);
    expect(oldPages.get('v1/s/a')).toMatchObject({ title: 'A: B', contentDraft: 'D', contentPublished: 'P' });
    // The same file in any other archive is read as darkdown.md §5 says: the blank line is the draft's.
    const now = await importThenExport(toZip({ 'manifest.json': manifest(2), 'v1/S/1 A.md': page }));
    const nowPages = await pagesByPath(t.app, now.target.key);
    expect(nowPages.get('v1/s/a')).toMatchObject({ title: 'A: B', contentDraft: 'D\n' });
  });
});
