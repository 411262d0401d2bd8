import { Readable } from 'node:stream';
import type yazl from 'yazl';

/** Bytes handed to the archive but not yet taken into it, past which the writer waits. */
const HIGH_WATER = 4 * 1024 * 1024;

/**
 * Adds files to a streamed ZIP no faster than its reader takes them. Each file goes in as a stream,
 * which the archive pipes with backpressure; `room()` waits until what is queued falls under a few
 * MiB, so an export holds about that much whatever its size, and a client that stops reading stops
 * the reads of the database too. An aborted signal wakes every wait and fails it.
 */
export class ArchiveWriter {
  private queued = 0;
  private waiting: Array<() => void> = [];

  constructor(
    private readonly zip: yazl.ZipFile,
    private readonly mtime: Date,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.wake(), { once: true });
  }

  get output(): Readable {
    return this.zip.outputStream as Readable;
  }

  add(path: string, bytes: Buffer): void {
    this.signal.throwIfAborted();
    const size = bytes.length;
    this.queued += size;
    const source = Readable.from([bytes], { objectMode: false });
    source.once('end', () => {
      this.queued -= size;
      if (this.queued < HIGH_WATER) this.wake();
    });
    this.zip.addReadStream(source, path, { mtime: this.mtime, mode: 0o100644 });
  }

  /** Resolves once the archive has taken enough of what it was given; rejects when aborted. */
  async room(): Promise<void> {
    while (this.queued >= HIGH_WATER && !this.signal.aborted) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.signal.throwIfAborted();
  }

  /** No more files: the archive writes its central directory once the queued files are in. */
  finish(): void {
    this.signal.throwIfAborted();
    this.zip.end();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
