import type yauzl from 'yauzl';
import { lazyModule } from '../../shared/lazy-module.ts';
import { BadRequestError } from '../../errors.ts';

/** The ZIP reader, loaded by the first import rather than by every process that could import. */
const zipReader = lazyModule<typeof yauzl>('yauzl');

/** The bounds of an import (extensions.md §3): checked before anything is inflated. */
/** Entries of the central directory read in one turn of the event loop. */
const ENTRIES_PER_TURN = 500;

export const ARCHIVE_LIMITS = {
  /** the upload itself */
  uploadBytes: 64 * 1024 * 1024,
  /** every file inflated */
  totalBytes: 512 * 1024 * 1024,
  entries: 50_000,
  /** inflated / compressed, for a file large enough to matter (`ratioFrom` bytes and more) */
  ratio: 200,
  ratioFrom: 1024 * 1024,
  /** one page file: a page holds at most 4,000,000 characters, of up to 4 bytes each */
  pageFileBytes: 16 * 1024 * 1024,
  /** one reference file, as an upload */
  referenceBytes: 8 * 1024 * 1024,
  /** settings.json, manifest.json */
  jsonBytes: 4 * 1024 * 1024,
} as const;

export interface ArchiveFile {
  /** the path, checked: relative, `/`-separated, no `..` or empty segment, no control but line breaks and tabs */
  path: string;
  size: number;
  entry: yauzl.Entry;
}

/** An import's archive that is not acceptable: always a 400 that names the file and the reason. */
export class ArchiveError extends BadRequestError {
  constructor(message: string) {
    super(`The archive cannot be imported: ${message}`);
  }
}

/**
 * One file that cannot be read as what its place says it is (its front matter, its text, its JSON):
 * no danger to anything, so an import skips it with a warning unless it is strict.
 */
export class ArchiveFileError extends ArchiveError {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`'${file}': ${reason}.`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The files of a ZIP held in memory, read on demand. Nothing is ever written to disk. */
export class ImportArchive {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    readonly files: readonly ArchiveFile[],
  ) {}

  /** Reads the central directory and checks every name and size in it; no file is inflated yet. */
  static async open(bytes: Buffer): Promise<ImportArchive> {
    if (bytes.length > ARCHIVE_LIMITS.uploadBytes) {
      throw new ArchiveError(`it is larger than ${ARCHIVE_LIMITS.uploadBytes / 1024 / 1024} MiB.`);
    }
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      zipReader().fromBuffer(
        bytes,
        { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false },
        (error, file) => (error ? reject(broken(error)) : resolve(file)),
      ),
    );
    if (zip.entryCount > ARCHIVE_LIMITS.entries) {
      throw new ArchiveError(
        `it holds ${zip.entryCount} entries; at most ${ARCHIVE_LIMITS.entries} are accepted.`,
      );
    }
    const files: ArchiveFile[] = [];
    const seen = new Set<string>();
    let total = 0;
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (error: Error) => reject(broken(error)));
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        try {
          const path = checkedPath(entry.fileNameRaw);
          if (!path.endsWith('/')) {
            checkSizes(path, entry);
            total += entry.uncompressedSize;
            if (total > ARCHIVE_LIMITS.totalBytes) {
              throw new ArchiveError(
                `its files inflate to more than ${ARCHIVE_LIMITS.totalBytes / 1024 / 1024} MiB.`,
              );
            }
            if (seen.has(path)) throw new ArchiveError(`'${path}' appears twice.`);
            seen.add(path);
            files.push({ path, size: entry.uncompressedSize, entry });
          }
          // Entries read from a buffer follow one another without a turn of the event loop between
          // them: tens of thousands held it for a quarter of a second.
          if (files.length % ENTRIES_PER_TURN === 0) setImmediate(() => zip.readEntry());
          else zip.readEntry();
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      zip.readEntry();
    });
    return new ImportArchive(zip, files);
  }

  /** One file's bytes, inflated; a size that differs from the directory's, or bad data, is a 400. */
  async read(file: ArchiveFile): Promise<Buffer> {
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      this.zip.openReadStream(file.entry, (error, s) =>
        error ? reject(broken(error, file.path)) : resolve(s),
      ),
    );
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of stream) chunks.push(chunk as Buffer);
    } catch (error) {
      throw broken(error, file.path);
    }
    const bytes = Buffer.concat(chunks);
    if (bytes.subarray(0, 4).equals(ZIP_MAGIC)) {
      throw new ArchiveError(
        `'${file.path}' is itself a ZIP archive; archives inside the archive are refused.`,
      );
    }
    return bytes;
  }

  /** One file as text: UTF-8 (a byte-order mark dropped), or a 400 naming it. */
  async readText(file: ArchiveFile): Promise<string> {
    const bytes = await this.read(file);
    try {
      return utf8.decode(bytes);
    } catch {
      throw new ArchiveFileError(file.path, 'it is not UTF-8 text');
    }
  }

  close(): void {
    this.zip.close();
  }
}

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const NESTED_ARCHIVE = /\.(zip|jar|war|epub|docx|xlsx|pptx|odt|7z|rar|tar|tgz|gz)$/i;

function checkedPath(raw: Buffer): string {
  let path: string;
  try {
    path = utf8.decode(raw);
  } catch {
    throw new ArchiveError(`an entry's name is not UTF-8 (${printable(raw)}).`);
  }
  const shown = JSON.stringify(path);
  if (path.includes('\\')) throw new ArchiveError(`the entry name ${shown} contains a backslash.`);
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) {
    throw new ArchiveError(`the entry name ${shown} is an absolute path.`);
  }
  // Line breaks and tabs are in real exports' names: a title that held one (they are read as spaces).
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(path))
    throw new ArchiveError(`the entry name ${shown} contains a control character.`);
  const segments = (path.endsWith('/') ? path.slice(0, -1) : path).split('/');
  if (segments.some((s) => s === '..'))
    throw new ArchiveError(`the entry name ${shown} leads out of the archive ('..').`);
  if (segments.some((s) => s === '' || s === '.'))
    throw new ArchiveError(`the entry name ${shown} has an empty segment.`);
  if (!path.endsWith('/') && NESTED_ARCHIVE.test(path)) {
    throw new ArchiveError(`${shown} is an archive; archives inside the archive are refused.`);
  }
  return path.normalize('NFC');
}

function checkSizes(path: string, entry: yauzl.Entry): void {
  const { uncompressedSize: size, compressedSize: packed } = entry;
  if (size >= ARCHIVE_LIMITS.ratioFrom && size > packed * ARCHIVE_LIMITS.ratio) {
    throw new ArchiveError(
      `'${path}' inflates ${Math.round(size / Math.max(packed, 1))} times; at most ${ARCHIVE_LIMITS.ratio} times is accepted.`,
    );
  }
  // Only the files an import reads have a bound of their own; the others are never inflated.
  const lower = path.toLowerCase();
  const limit = lower.endsWith('.md')
    ? ARCHIVE_LIMITS.pageFileBytes
    : /(^|\/)refs\//.test(path)
      ? ARCHIVE_LIMITS.referenceBytes
      : lower.endsWith('.json')
        ? ARCHIVE_LIMITS.jsonBytes
        : Number.POSITIVE_INFINITY;
  if (size > limit) {
    throw new ArchiveError(`'${path}' is ${size} bytes; at most ${limit} are accepted for such a file.`);
  }
  if (entry.isEncrypted()) throw new ArchiveError(`'${path}' is encrypted.`);
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw new ArchiveError(
      `'${path}' uses compression method ${entry.compressionMethod}; only stored and deflated files are read.`,
    );
  }
}

function broken(error: unknown, path?: string): ArchiveError {
  if (error instanceof ArchiveError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ArchiveError(
    `${path === undefined ? 'it is not a readable ZIP archive' : `'${path}' cannot be read`} (${message}).`,
  );
}

const printable = (raw: Buffer): string => raw.toString('latin1').replace(/[^\x20-\x7e]/g, '?');
