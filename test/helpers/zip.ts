import zlib from 'node:zlib';
import yauzl from 'yauzl';

/** Every file of a ZIP archive by its path, read with the same library Quire reads imports with. */
export async function readZip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, file) => (error ? reject(error) : resolve(file))),
  );
  const files = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', resolve);
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', reject);
        stream.on('end', () => {
          files.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  return files;
}

/** The files of an archive as text, in archive order. */
export async function zipTexts(bytes: Buffer): Promise<Record<string, string>> {
  const files = await readZip(bytes);
  return Object.fromEntries([...files].map(([name, data]) => [name, data.toString('utf8')]));
}

export interface ZipEntrySpec {
  /** the name as written: a string is written as UTF-8, a Buffer as its bytes */
  name: string | Buffer;
  data?: Buffer | string;
  /** deflated (default) or stored */
  compress?: boolean;
  /** what the central directory claims, where a test wants it to lie */
  claimedSize?: number;
  claimedCompressedSize?: number;
}

/**
 * A ZIP written byte by byte, so a test can make archives no ZIP library would: hostile names, sizes
 * that lie, tens of thousands of entries. Format: APPNOTE 6.3, no ZIP64, no data descriptors.
 */
export function buildZip(entries: readonly ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const spec of entries) {
    const name = typeof spec.name === 'string' ? Buffer.from(spec.name, 'utf8') : spec.name;
    const data =
      typeof spec.data === 'string' ? Buffer.from(spec.data, 'utf8') : (spec.data ?? Buffer.alloc(0));
    const compress = spec.compress ?? true;
    const packed = compress ? zlib.deflateRawSync(data) : data;
    const crc = zlib.crc32(data);
    const flags = typeof spec.name === 'string' ? 0x0800 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(compress ? 8 : 0, 8);
    local.writeUInt32LE(0, 10);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(compress ? 8 : 0, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(spec.claimedCompressedSize ?? packed.length, 20);
    central.writeUInt32LE(spec.claimedSize ?? data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
