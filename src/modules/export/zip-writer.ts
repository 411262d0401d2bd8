import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const deflateRaw = promisify(zlib.deflateRaw);

/** Below this many bytes, deflating costs more than the few bytes it could save. */
const STORE_BELOW = 64;
const MAX_16 = 0xffff;
const MAX_32 = 0xffffffff;
/** Unix, spec 4.5 ("version made by"): external attributes then carry the file mode. */
const MADE_BY_UNIX = (3 << 8) | 45;
const FILE_MODE = 0o100644;
const UTF8_NAMES = 0x0800;

interface CentralRecord {
  name: Buffer;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
  time: number;
  date: number;
}

/** Data ready to be written: deflated (in the thread pool) or stored, with its CRC-32. */
export interface PackedFile {
  name: string;
  method: 0 | 8;
  crc: number;
  size: number;
  data: Buffer;
}

/**
 * From this size on a file deflates in libuv's thread pool. Below it, deflating here is cheaper than
 * the hand-off: an asynchronous zlib call costs about 0.4 ms whatever its size (a stream set up in
 * the pool, measured), a synchronous one of a 5 KB page 0.03 ms. A batch of 100 small pages then
 * holds the event loop for a few milliseconds at most.
 */
const DEFLATE_ASYNC_FROM = 256 * 1024;

/** Packs one file for the archive: its CRC-32, and its deflated bytes when deflate makes it smaller. */
export async function packFile(name: string, bytes: Buffer): Promise<PackedFile> {
  const crc = zlib.crc32(bytes);
  if (bytes.length < STORE_BELOW) return { name, method: 0, crc, size: bytes.length, data: bytes };
  const deflated = bytes.length >= DEFLATE_ASYNC_FROM ? await deflateRaw(bytes) : zlib.deflateRawSync(bytes);
  return deflated.length < bytes.length
    ? { name, method: 8, crc, size: bytes.length, data: deflated }
    : { name, method: 0, crc, size: bytes.length, data: bytes };
}

/**
 * A ZIP archive written as a stream (APPNOTE 6.3.10): each file's local header with its sizes and
 * CRC known in advance (no data descriptors), names in UTF-8, and the ZIP64 records whenever the
 * archive outgrows the classic fields (more than 65,535 files, or past 4 GiB). It only frames
 * data packed by `packFile`: the streaming ZIP libraries measured 0.25–0.8 ms per file, pumping each
 * file through an asynchronous zlib stream of its own one after another, several seconds for
 * 10,000 pages (and yazl's queue grows quadratic with the number of files).
 *
 * `output` is read by the HTTP response; `write` resolves once the reader has room again, so the
 * archive never holds more than a few chunks however slow the client.
 */
export class ZipWriter {
  readonly output: Readable;
  private offset = 0;
  private readonly records: CentralRecord[] = [];
  private waiting: (() => void) | null = null;
  private readonly time: number;
  private readonly date: number;

  constructor(mtime: Date, highWaterMark = 1024 * 1024) {
    this.output = new Readable({
      highWaterMark,
      read: () => this.resume(),
    });
    // A reader that goes away never reads again: closing the stream ends the wait too.
    this.output.once('close', () => this.resume());
    this.time = (mtime.getUTCHours() << 11) | (mtime.getUTCMinutes() << 5) | (mtime.getUTCSeconds() >> 1);
    this.date =
      ((Math.max(1980, mtime.getUTCFullYear()) - 1980) << 9) |
      ((mtime.getUTCMonth() + 1) << 5) |
      mtime.getUTCDate();
  }

  /** Appends one packed file; resolves when the stream can take more. */
  async write(file: PackedFile): Promise<void> {
    const name = Buffer.from(file.name, 'utf8');
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(UTF8_NAMES, 6);
    header.writeUInt16LE(file.method, 8);
    header.writeUInt16LE(this.time, 10);
    header.writeUInt16LE(this.date, 12);
    header.writeUInt32LE(file.crc, 14);
    header.writeUInt32LE(file.data.length, 18);
    header.writeUInt32LE(file.size, 22);
    header.writeUInt16LE(name.length, 26);
    this.records.push({
      name,
      method: file.method,
      crc: file.crc,
      compressedSize: file.data.length,
      size: file.size,
      offset: this.offset,
      time: this.time,
      date: this.date,
    });
    await this.push(Buffer.concat([header, name]));
    await this.push(file.data);
  }

  /** The central directory and its end records; then the stream ends. */
  async finish(): Promise<void> {
    const start = this.offset;
    for (const record of this.records) await this.push(centralRecord(record));
    const size = this.offset - start;
    const count = this.records.length;
    const zip64 = count > MAX_16 || start >= MAX_32 || size >= MAX_32;
    if (zip64) {
      const end64At = this.offset;
      const end64 = Buffer.alloc(56);
      end64.writeUInt32LE(0x06064b50, 0);
      end64.writeBigUInt64LE(44n, 4);
      end64.writeUInt16LE(MADE_BY_UNIX, 12);
      end64.writeUInt16LE(45, 14);
      end64.writeBigUInt64LE(BigInt(count), 24);
      end64.writeBigUInt64LE(BigInt(count), 32);
      end64.writeBigUInt64LE(BigInt(size), 40);
      end64.writeBigUInt64LE(BigInt(start), 48);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(0x07064b50, 0);
      locator.writeBigUInt64LE(BigInt(end64At), 8);
      locator.writeUInt32LE(1, 16);
      await this.push(Buffer.concat([end64, locator]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(Math.min(count, MAX_16), 8);
    end.writeUInt16LE(Math.min(count, MAX_16), 10);
    end.writeUInt32LE(Math.min(size, MAX_32), 12);
    end.writeUInt32LE(Math.min(start, MAX_32), 16);
    await this.push(end);
    this.output.push(null);
  }

  private async push(chunk: Buffer): Promise<void> {
    this.offset += chunk.length;
    if (this.output.destroyed) throw new Error('The archive stream was closed.');
    if (this.output.push(chunk)) return;
    await new Promise<void>((resolve) => (this.waiting = resolve));
  }

  private resume(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }
}

function centralRecord(r: CentralRecord): Buffer {
  const far = r.offset >= MAX_32;
  const extra = far ? Buffer.alloc(12) : Buffer.alloc(0);
  if (far) {
    extra.writeUInt16LE(0x0001, 0);
    extra.writeUInt16LE(8, 2);
    extra.writeBigUInt64LE(BigInt(r.offset), 4);
  }
  const record = Buffer.alloc(46);
  record.writeUInt32LE(0x02014b50, 0);
  record.writeUInt16LE(MADE_BY_UNIX, 4);
  record.writeUInt16LE(far ? 45 : 20, 6);
  record.writeUInt16LE(UTF8_NAMES, 8);
  record.writeUInt16LE(r.method, 10);
  record.writeUInt16LE(r.time, 12);
  record.writeUInt16LE(r.date, 14);
  record.writeUInt32LE(r.crc, 16);
  record.writeUInt32LE(r.compressedSize, 20);
  record.writeUInt32LE(r.size, 24);
  record.writeUInt16LE(r.name.length, 28);
  record.writeUInt16LE(extra.length, 30);
  record.writeUInt32LE((FILE_MODE << 16) >>> 0, 38);
  record.writeUInt32LE(far ? MAX_32 : r.offset, 42);
  return Buffer.concat([record, r.name, extra]);
}
