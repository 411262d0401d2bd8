import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** SQLite's own threshold (WAL pages), which the writer goes back to whenever nothing checkpoints beside it. */
export const WRITER_CHECKPOINT_PAGES = 1_000;
/**
 * The writer's threshold while the thread checkpoints: none. SQLite checkpoints inside the commit
 * that takes the WAL past the threshold, copying every frame not yet copied, so after a large
 * transaction (an import) the writer copied hundreds of MiB on the event loop. The thread copies
 * every committed frame each run, and the writer starts the WAL over by itself once all are
 * copied; while the thread's checkpoints fail, the writer has SQLite's threshold back.
 */
export const BACKGROUND_WRITER_CHECKPOINT_PAGES = 0;

export interface CheckpointStats {
  /** checkpoints that copied frames into the database file */
  readonly runs: number;
  /** checkpoints that failed (the thread carries on), and a thread that stopped on its own */
  readonly failures: number;
}

/**
 * The thread: a connection of its own to the file, a passive checkpoint every `intervalMs` (it
 * waits for no reader and no writer, and copies what it can). CommonJS evaluated as is: it needs no
 * loader, whether the server runs compiled or through tsx.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.module);
let db = null;
let timer = null;
try {
  db = new SQLite(workerData.file, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  let previous = 0;
  timer = setInterval(() => {
    try {
      // checkpointed: the WAL's frames copied so far; fewer than last time when the WAL started over.
      const row = checkpoint.get();
      if (row.checkpointed > 0 && row.checkpointed !== previous) parentPort.postMessage({ copied: true });
      previous = row.checkpointed;
    } catch (error) {
      parentPort.postMessage({ failed: String(error && error.message) });
    }
  }, workerData.intervalMs);
} catch (error) {
  // Told as a message, the thread staying until it is stopped: SQLite's error class does not cross
  // to the main thread, and a message sent just before the thread ends may arrive after its end.
  if (db !== null) db.close();
  db = null;
  parentPort.postMessage({ stopped: String(error && error.message) });
}
parentPort.on('message', () => {
  if (timer !== null) clearInterval(timer);
  if (db !== null) db.close();
  parentPort.close();
});
`;

/**
 * Copies the WAL of a SQLite database file into the file on a thread of its own. Left to the
 * writer, SQLite does this inside the commit that takes the WAL past 1,000 pages: measured on a
 * draft update, the checkpoints were a third of the commit's time (27 of 85 µs a write), spent on
 * the event loop. Started by the server (`serve`); tests, the CLI and in-memory databases keep
 * SQLite's own.
 */
export class WalCheckpointer {
  private worker: Worker | null = null;
  private runs = 0;
  private failures = 0;
  private stopping = false;

  private readonly intervalMs: number;
  private readonly onFailure: (error: Error) => void;

  /** `onFailure` hears why a checkpoint failed or the thread stopped (the server logs it). */
  constructor(
    private readonly writer: SQLite.Database | null,
    options: { intervalMs?: number; onFailure?: (error: Error) => void } = {},
  ) {
    this.intervalMs = options.intervalMs ?? 100;
    this.onFailure = options.onFailure ?? (() => undefined);
  }

  /** Starts the thread; nothing on PostgreSQL or an in-memory database. Idempotent. */
  start(): void {
    const writer = this.writer;
    if (writer === null || writer.memory || this.worker !== null || this.stopping) return;
    const worker = new Worker(THREAD, {
      eval: true,
      workerData: {
        module: createRequire(import.meta.url).resolve('better-sqlite3'),
        file: writer.name,
        intervalMs: this.intervalMs,
      },
    });
    worker.unref();
    // A thread that cannot open the file, fails or dies hands the work back to the writer.
    const ended = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.restoreWriter();
      if (this.stopping) return;
      this.failures += 1;
      this.onFailure(new Error(`checkpoint thread stopped (${reason}); the writer checkpoints again`));
    };
    // Failures in a row are told once, not every 100 ms; a checkpoint that copies ends the streak.
    let failing = false;
    worker.on('message', (message: { copied?: true; failed?: string; stopped?: string }) => {
      if (message.copied === true) {
        this.runs += 1;
        if (failing) this.handOver();
        failing = false;
      } else if (message.stopped !== undefined) {
        ended(message.stopped);
        void worker.terminate();
      } else {
        this.failures += 1;
        if (!failing) {
          this.onFailure(new Error(`background checkpoint failed: ${message.failed ?? 'unknown error'}`));
          // The WAL would grow for as long as nobody checkpoints.
          this.restoreWriter();
        }
        failing = true;
      }
    });
    worker.on('error', (error) =>
      ended(error instanceof Error && error.message !== '' ? error.message : 'an error in the thread'),
    );
    worker.on('exit', () => ended('the thread exited'));
    this.worker = worker;
    this.handOver();
  }

  stats(): CheckpointStats {
    return { runs: this.runs, failures: this.failures };
  }

  /** Stops the thread (before the database closes); the writer checkpoints by itself again. */
  async close(): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    await exited;
    this.worker = null;
    this.restoreWriter();
  }

  private handOver(): void {
    if (this.writer?.open) this.writer.pragma(`wal_autocheckpoint = ${BACKGROUND_WRITER_CHECKPOINT_PAGES}`);
  }

  private restoreWriter(): void {
    if (this.writer?.open) this.writer.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
  }
}
