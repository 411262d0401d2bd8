import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { packFile, ZipWriter } from '../src/modules/export/zip-writer.ts';
import { readZip } from './helpers/zip.ts';

async function archiveOf(files: Array<[string, Buffer]>): Promise<Buffer> {
  const zip = new ZipWriter(new Date('2026-11-21T10:15:42Z'));
  const chunks: Buffer[] = [];
  const read = pipeline(
    zip.output,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    }),
  );
  for (const [name, bytes] of files) await zip.write(await packFile(name, bytes));
  await zip.finish();
  await read;
  return Buffer.concat(chunks);
}

/** The archive format itself, below the export: what any unzip tool must read back. */
describe('ZipWriter', () => {
  it('writes stored, deflated and large files with UTF-8 names that a ZIP reader reads back exactly', async () => {
    const files: Array<[string, Buffer]> = [
      ['tiny.txt', Buffer.from('a')],
      ['Über/Straße – ünïcode.md', Buffer.from('# Grüße\n'.repeat(1000))],
      ['random.bin', Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 251))],
      ['large.md', Buffer.alloc(600 * 1024, 'large page ')],
      ['empty.md', Buffer.alloc(0)],
    ];
    const read = await readZip(await archiveOf(files));
    expect([...read.keys()]).toEqual(files.map(([name]) => name));
    for (const [name, bytes] of files) expect(read.get(name)?.equals(bytes), name).toBe(true);
  });

  it('switches to ZIP64 records past 65,535 files', { timeout: 60_000 }, async () => {
    const files = Array.from({ length: 70_000 }, (_, i): [string, Buffer] => [
      `f/${i}.md`,
      Buffer.from(`${i}`),
    ]);
    const read = await readZip(await archiveOf(files));
    expect(read.size).toBe(70_000);
    expect(read.get('f/69999.md')?.toString()).toBe('69999');
  });
});
