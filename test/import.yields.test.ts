import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createKey, createWorld, insertPageRow } from './helpers/factories.ts';
import { multipart } from './helpers/references.ts';
import { client, dialectName, useTestApp } from './helpers/test-app.ts';
import { buildZip, type ZipEntrySpec } from './helpers/zip.ts';

const t = useTestApp();

/** Many pages, stored rather than deflated: reading them hands the event loop nothing by itself. */
function archiveOf(pages: number): Buffer {
  const body = 'A paragraph of an imported page, long enough to be written as a page is.\n'.repeat(20);
  const entries: ZipEntrySpec[] = [
    { name: 'Big/Guides/settings.json', data: '{"title":"Guides"}', compress: false },
  ];
  for (let n = 1; n <= pages; n++) {
    entries.push({
      name: `Big/Guides/${n} Page ${n}.md`,
      data: `---\ntype: page\ntitle: Page ${n}\nslug: page-${n}\n---published\n\n${body}\n`,
      compress: false,
    });
  }
  return buildZip(entries);
}

// On a SQLite file every statement runs on the event loop and the writer is one connection: an
// import of thousands of pages held both until it committed.
describe.skipIf(dialectName !== 'sqlite')('an import on SQLite', () => {
  it('lets a page read through, with a key never used before, while its transaction is open', async () => {
    const target = await createWorld(t.deps);
    const reader = await createWorld(t.deps);
    const pageId = await insertPageRow(t.deps, reader.documentation.id);
    // Not in the key cache: the read must look it up while the import holds the writer.
    const { key } = await createKey(t.deps, reader.project.id);
    const body = await multipart([
      { name: 'file', content: archiveOf(300), filename: 'export.zip', type: 'application/zip' },
    ]);

    let imported = false;
    const importing = client(t.app, target.key)
      .post('/import', undefined, body)
      .finally(() => (imported = true));
    const writer = t.deps.database.sqlite;
    while (!imported && writer?.inTransaction !== true) await sleep(1);
    expect(imported, 'the import never let a timer run before it finished').toBe(false);

    const read = await client(t.app, key).get(`/page/${pageId}`);
    expect(read.statusCode).toBe(200);
    expect(imported, 'the read was answered only once the import had committed').toBe(false);

    const res = await importing;
    expect(res.statusCode).toBe(201);
    expect(res.json<{ pages: number }>().pages).toBe(300);
  });
});
