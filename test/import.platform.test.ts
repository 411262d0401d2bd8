import { describe, expect, it } from 'vitest';
import {
  contentsOf,
  emptyProject,
  exportFiles,
  importZip,
  pagesByPath,
  type ImportReport,
} from './helpers/import-client.ts';
import { expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { buildZip, type ZipEntrySpec } from './helpers/zip.ts';

// The platform's real Darkdown exports are messier than darkdown.md §5 suggests; each quirk here is
// one such an export showed. Places are checked through Quire's own export of what was imported:
// its numbered files, category entries and child folders say the section, order and parent.

const t = useTestApp();

const LINE_BREAK_WARNING = 'The title holds a line break: it was read as a space.';

async function importFiles(files: ZipEntrySpec[], query = '') {
  const target = await emptyProject(t.deps);
  const res = await importZip(t.app, target.key, buildZip(files), query);
  return { target, res };
}

describe('POST /import of titles holding a line break', () => {
  it('reads them in file names, child folders and front matter as one line, with a warning', async () => {
    const hat = 'v1/Gateways/1 RAK2245\nPi Hat.md';
    const wiring = 'v1/Gateways/RAK2245\nPi Hat/1 Wiring\nthe pins.md';
    const { target, res } = await importFiles([
      { name: 'v1/Gateways/settings.json', data: '{"title":"Gateways","slug":"gateways"}' },
      {
        name: hat,
        // The title's second line stands alone, after `title:`; it holds a colon of its own.
        data: '---\ntype: page\ntitle: RAK2245\nPi Hat: LoRa Gateway\nslug: rak2245\nlisted: true\n---published\n\nThe hat.\n',
      },
      { name: wiring, data: '---\ntype: page\nslug: wiring\n---draft\n\nPins.\n' },
      { name: 'v1/Gateways/2 Tab\tin the name.md', data: '---\ntitle: Tabbed\n---published\n\nT\n' },
      { name: 'v1/Loose\nends/1 End.md', data: '---\ntitle: End\n---published\n\nE\n' },
    ]);
    expect(res.statusCode).toBe(201);
    expect(res.json<ImportReport>()).toMatchObject({ documentation: 2, categories: 0, pages: 4 });
    expect(res.json<ImportReport>().warnings).toEqual([
      { file: hat, message: LINE_BREAK_WARNING },
      { file: wiring, message: LINE_BREAK_WARNING },
      { file: 'v1/Loose\nends/', message: LINE_BREAK_WARNING },
    ]);

    const pages = await pagesByPath(t.app, target.key);
    expect(pages.get('v1/gateways/rak2245')).toMatchObject({
      title: 'RAK2245 Pi Hat: LoRa Gateway',
      listed: true,
      contentPublished: 'The hat.',
      contentDraft: null,
    });
    expect(pages.get('v1/gateways/wiring')).toMatchObject({
      title: 'Wiring the pins',
      contentDraft: 'Pins.',
      contentPublished: null,
    });
    expect(pages.get('v1/gateways/tabbed')).toMatchObject({ title: 'Tabbed', contentPublished: 'T' });
    expect(pages.get('v1/loose-ends/end')).toMatchObject({ title: 'End' });
    expect(Object.keys(await exportFiles(t.app, target.key))).toEqual([
      'v1/Gateways/settings.json',
      'v1/Gateways/1 RAK2245 Pi Hat- LoRa Gateway.md',
      'v1/Gateways/RAK2245 Pi Hat- LoRa Gateway/1 Wiring the pins.md',
      'v1/Gateways/2 Tabbed.md',
      'v1/Loose ends/settings.json',
      'v1/Loose ends/1 End.md',
    ]);
  });

  it('still refuses other control characters in a name, naming the entry', async () => {
    const { target, res } = await importFiles([
      { name: 'v1/S/1 Good.md', data: '---\ntitle: Good\n---published\n\nG\n' },
      { name: 'v1/S/2 Bell\u0007.md', data: '---\ntitle: Bell\n---published\n\nB\n' },
    ]);
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toBe(
      'The archive cannot be imported: the entry name "v1/S/2 Bell\\u0007.md" contains a control character.',
    );
    expect(await contentsOf(t.app, target.key)).toEqual({
      page: {},
      documentation: {},
      reference: {},
      version: {},
    });
  });
});

describe('POST /import of front matter as the platform writes it', () => {
  it('reads key: value lines, not YAML: a value runs to the end of its line; quotes are taken off', async () => {
    const page = (title: string, slug: string) =>
      `---\ntype: page\ntitle: ${title}\nslug: ${slug}\n---published\n\nx\n`;
    const { target, res } = await importFiles([
      { name: 'v1/S/1 A.md', data: page('RAK2245 Pi Hat: LoRa Gateway', 'a') },
      { name: 'v1/S/2 B.md', data: page(`C# & *stars* [draft] #1 'it' "is"`, 'b') },
      { name: 'v1/S/3 C.md', data: page("'Single: quoted'", '"c"') },
      { name: 'v1/S/4 D.md', data: page('"Double: # quoted"', "'d'") },
      { name: 'v1/S/5 E.md', data: page("'It's'", 'e') },
      {
        name: 'v1/S/6 F.md',
        data: '---\ntitle: Keys: look alike\ndescription: a: b\n# not a comment\n---published\n\nx\n',
      },
    ]);
    expect(res.statusCode).toBe(201);
    expect(res.json<ImportReport>().warnings).toEqual([
      {
        file: 'v1/S/6 F.md',
        message: "The front matter key 'description' has no place in Quire and was left out.",
      },
    ]);
    const titles = [...(await pagesByPath(t.app, target.key))].map(([path, p]) => [path, p.title]);
    expect(titles.sort()).toEqual([
      ['v1/s/a', 'RAK2245 Pi Hat: LoRa Gateway'],
      ['v1/s/b', `C# & *stars* [draft] #1 'it' "is"`],
      ['v1/s/c', 'Single: quoted'],
      ['v1/s/d', 'Double: # quoted'],
      ['v1/s/e', "It's"],
      ['v1/s/keys-look-alike', 'Keys: look alike'],
    ]);
  });
});

describe('POST /import of page parts', () => {
  it('reads bodies ending with zero, one and two newlines byte for byte, in both parts', async () => {
    const ends = { zero: '', one: '\n', two: '\n\n' };
    const files: ZipEntrySpec[] = [];
    let n = 0;
    for (const [name, end] of Object.entries(ends)) {
      const draft = `Draft ${name}\n---\n# kept${end}`;
      const published = `Published ${name}${end}`;
      const meta = (kind: string) => `---\ntitle: ${kind} ${name}\nslug: ${kind}-${name}\n`;
      // A part is a newline, the body, and a newline before the next marker line or the end.
      files.push(
        {
          name: `v1/S/${++n} Both ${name}.md`,
          data: `${meta('both')}---draft\n\n${draft}\n---published\n\n${published}\n`,
        },
        { name: `v1/S/${++n} Draft ${name}.md`, data: `${meta('draft')}---draft\n\n${draft}\n` },
        { name: `v1/S/${++n} Pub ${name}.md`, data: `${meta('pub')}---published\n\n${published}\n` },
        {
          name: `v1/S/${++n} Crlf ${name}.md`,
          data: `${meta('crlf')}---draft\n\n${draft}\n---published\n\n${published}\n`.replace(/\n/g, '\r\n'),
        },
      );
    }
    const { target, res } = await importFiles(files);
    expect(res.statusCode).toBe(201);
    expect(res.json<ImportReport>()).toMatchObject({ pages: 12, warnings: [] });
    const pages = await pagesByPath(t.app, target.key);
    for (const [name, end] of Object.entries(ends)) {
      const draft = `Draft ${name}\n---\n# kept${end}`;
      const published = `Published ${name}${end}`;
      const crlf = (s: string) => s.replace(/\n/g, '\r\n');
      expect(pages.get(`v1/s/both-${name}`)).toMatchObject({
        contentDraft: draft,
        contentPublished: published,
      });
      expect(pages.get(`v1/s/draft-${name}`)).toMatchObject({ contentDraft: draft, contentPublished: null });
      expect(pages.get(`v1/s/pub-${name}`)).toMatchObject({
        contentDraft: null,
        contentPublished: published,
      });
      expect(pages.get(`v1/s/crlf-${name}`)).toMatchObject({
        contentDraft: crlf(draft),
        contentPublished: crlf(published),
      });
    }
  });
});

describe('POST /import of pages sharing a title and a slug', () => {
  it('imports each, under another parent or as a copy, with slugs made unique and a warning', async () => {
    const page = (title: string, slug: string | null, body: string) =>
      `---\ntype: page\ntitle: ${title}\n${slug === null ? '' : `slug: ${slug}\n`}---published\n\n${body}\n`;
    const { target, res } = await importFiles([
      { name: 'v1/S/1 Setup.md', data: page('Setup', 'setup', 'first') },
      { name: 'v1/S/1 Setup/1 Setup.md', data: page('Setup', 'setup', 'child') },
      { name: 'v1/S/2 Guides.md', data: '---\ntype: category\ntitle: Guides\n---\n' },
      { name: 'v1/S/3 Setup.md', data: page('Setup', 'setup', 'copy') },
      { name: 'v1/S/4 Other.md', data: page('Other', null, 'other') },
      { name: 'v1/S/Other/1 Setup.md', data: page('Setup', null, 'under other') },
    ]);
    expect(res.statusCode).toBe(201);
    expect(res.json<ImportReport>()).toMatchObject({ categories: 1, pages: 5 });
    expect(res.json<ImportReport>().warnings).toEqual([
      {
        file: 'v1/S/1 Setup/1 Setup.md',
        message: "Another page of the section has the slug 'setup': this one's is 'setup-2'.",
      },
      {
        file: 'v1/S/3 Setup.md',
        message: "Another page of the section has the slug 'setup': this one's is 'setup-3'.",
      },
      {
        file: 'v1/S/Other/1 Setup.md',
        message: "Another page of the section has the slug 'setup': this one's is 'setup-4'.",
      },
    ]);
    const pages = await pagesByPath(t.app, target.key);
    const bodies = [...pages].map(([path, p]) => [path, p.title, p.contentPublished]).sort();
    expect(bodies).toEqual([
      ['v1/s/other', 'Other', 'other'],
      ['v1/s/setup', 'Setup', 'first'],
      ['v1/s/setup-2', 'Setup', 'child'],
      ['v1/s/setup-3', 'Setup', 'copy'],
      ['v1/s/setup-4', 'Setup', 'under other'],
    ]);
    // Places: the child under the first, the copy and Other in the category, Other's child under it.
    const files = await exportFiles(t.app, target.key);
    expect(Object.keys(files)).toEqual([
      'v1/S/settings.json',
      'v1/S/1 Setup.md',
      'v1/S/Setup/1 Setup.md',
      'v1/S/2 Guides.md',
      'v1/S/3 Setup (2).md',
      'v1/S/4 Other.md',
      'v1/S/Other/1 Setup.md',
    ]);
    expect(files['v1/S/Setup/1 Setup.md']).toContain('slug: setup-2\n');
    expect(files['v1/S/3 Setup (2).md']).toContain('slug: setup-3\n');
    expect(files['v1/S/Other/1 Setup.md']).toContain('slug: setup-4\n');
  });
});
