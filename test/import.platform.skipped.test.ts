import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import {
  contentsOf,
  emptyProject,
  exportFiles,
  importZip,
  pagesByPath,
  type ImportReport,
} from './helpers/import-client.ts';
import { openapiJson } from './helpers/references.ts';
import { expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { buildZip, type ZipEntrySpec } from './helpers/zip.ts';

// One bad file of a real export never sinks the rest of it: it is skipped, named with the reason.
// `?strict=true` (and `bin/quire import --strict`) keeps the all-or-nothing.

const t = useTestApp();

const page = (title: string, body: string) => `---\ntitle: ${title}\n---published\n\n${body}\n`;

/** An archive with a good page or two beside each kind of bad file. */
const mixed = (): ZipEntrySpec[] => [
  { name: 'v1/S/1 Good.md', data: page('Good', 'good') },
  { name: 'v1/S/2 Latin.md', data: Buffer.from('---\ntitle: Caf\xe9\n---published\n\nx\n', 'latin1') },
  { name: 'v1/S/3 Broken.md', data: '---\n- a list item\n---published\n\nx\n' },
  { name: 'v1/S/Broken/1 Child.md', data: page('Child', 'child') },
  { name: 'v1/S/4 Unclosed.md', data: '---\ntitle: Unclosed\n' },
  { name: 'v1/T/settings.json', data: '{"title": "T", ' },
  { name: 'v1/T/1 Kept.md', data: page('Kept', 'kept') },
  { name: 'v1/refs/bad.json', data: '{"openapi": "3.0.3", "info": {"title": "Bad"}}' },
  { name: 'v1/refs/pets.json', data: openapiJson('Pets') },
];

const EMPTY = { page: {}, documentation: {}, reference: {}, version: {} };

describe('POST /import of an archive holding bad files', () => {
  it('skips each with a warning naming it and the reason, and imports everything else', async () => {
    const target = await emptyProject(t.deps);
    const res = await importZip(t.app, target.key, buildZip(mixed()));
    expect(res.statusCode).toBe(201);
    const report = res.json<ImportReport>();
    expect(report).toMatchObject({ documentation: 2, pages: 3, references: 1 });
    expect(report.warnings).toEqual([
      { file: 'v1/S/2 Latin.md', message: 'It is not UTF-8 text: the file was skipped.' },
      {
        file: 'v1/S/3 Broken.md',
        message: 'Invalid front matter: the line "- a list item" has no key: the file was skipped.',
      },
      {
        file: 'v1/S/4 Unclosed.md',
        message: 'Invalid page file: the front matter block is never closed: the file was skipped.',
      },
      {
        file: 'v1/S/Broken/',
        message: 'This folder is named after no page beside it: its pages were added at its level.',
      },
      {
        file: 'v1/T/settings.json',
        message: expect.stringMatching(
          /^It is not valid JSON \(.+\): the section was read without it\.$/,
        ) as string,
      },
      {
        file: 'v1/refs/bad.json',
        message: expect.stringMatching(
          /^Not a definition Quire accepts \(.*(paths|version).*\): the file was skipped\.$/,
        ) as string,
      },
    ]);
    const pages = await pagesByPath(t.app, target.key);
    expect([...pages].map(([p, v]) => [p, v.title, v.contentPublished]).sort()).toEqual([
      ['v1/s/child', 'Child', 'child'],
      ['v1/s/good', 'Good', 'good'],
      ['v1/t/kept', 'Kept', 'kept'],
    ]);
    expect(Object.keys(await exportFiles(t.app, target.key))).toEqual([
      'v1/S/settings.json',
      'v1/S/1 Good.md',
      'v1/S/2 Child.md',
      'v1/T/settings.json',
      'v1/T/1 Kept.md',
      'v1/refs/pets.json',
    ]);
  });

  it('refuses the whole archive with strict=true, naming the first bad file, writing nothing', async () => {
    const target = await emptyProject(t.deps);
    const res = await importZip(t.app, target.key, buildZip(mixed()), '?strict=true');
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toBe(
      "The archive cannot be imported: 'v1/S/2 Latin.md': it is not UTF-8 text.",
    );
    expect(await contentsOf(t.app, target.key)).toEqual(EMPTY);

    // A definition is checked as the pages are written: strict refuses it too, and all rolls back.
    const late = buildZip([mixed()[0]!, mixed()[7]!]);
    const refused = await importZip(t.app, target.key, late, '?strict=true');
    expect(refused.statusCode).toBe(400);
    expect(await contentsOf(t.app, target.key)).toEqual(EMPTY);
    expect((await importZip(t.app, target.key, late, '?strict=false')).statusCode).toBe(201);
  });

  it('refuses what is unsafe whatever strict says: an archive hidden in a page file', async () => {
    const target = await emptyProject(t.deps);
    const zip = buildZip([
      { name: 'v1/S/1 Good.md', data: page('Good', 'good') },
      { name: 'v1/S/2 Inner.md', data: buildZip([{ name: 'a.txt', data: 'a' }]) },
    ]);
    const res = await importZip(t.app, target.key, zip);
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toMatch(/'v1\/S\/2 Inner.md' is itself a ZIP archive/);
    expect(await contentsOf(t.app, target.key)).toEqual(EMPTY);
  });

  it('is the same through bin/quire import, whose --strict keeps the all-or-nothing', async () => {
    const target = await emptyProject(t.deps);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-import-')), 'export.zip');
    fs.writeFileSync(file, buildZip(mixed()));
    const run = async (...extra: string[]) => {
      let stdout = '';
      let stderr = '';
      const args = ['import', '--project', String(target.project.id), file, ...extra];
      const code = await runCli(
        args,
        { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), stderrIsTerminal: false },
        t.deps,
      );
      return { code, stdout, stderr };
    };
    const strict = await run('--strict');
    expect(strict).toEqual({
      code: 1,
      stdout: '',
      stderr: "quire: The archive cannot be imported: 'v1/S/2 Latin.md': it is not UTF-8 text.\n",
    });
    expect(await contentsOf(t.app, target.key)).toEqual(EMPTY);

    const lenient = await run();
    expect(lenient.code).toBe(0);
    const report = JSON.parse(lenient.stdout) as ImportReport;
    expect(report).toMatchObject({ pages: 3, references: 1 });
    expect(report.warnings.map((w) => w.file)).toContain('v1/S/2 Latin.md');
  });
});
