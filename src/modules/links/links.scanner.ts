import { availableParallelism } from 'node:os';
import { setImmediate } from 'node:timers/promises';
import type { LruCache } from '../../shared/lru-cache.ts';
import { sourceDigest } from '../../shared/serialised.ts';
import type { WorkerPool } from '../../workers/pool.ts';
import { unavailableIfTaskFails } from '../../workers/task-unavailable.ts';
import type { PageEntry } from './link-index.ts';
import { SCAN_VERSION, scanContent, type ContentScan } from '../../content/link-scan.ts';
import type { StoredScan } from './link-scans.repository.ts';

type Variables = Readonly<Record<string, unknown>>;

/** A content to scan: which page, which of its contents. */
export interface PendingScan {
  page: PageEntry;
  isDraft: boolean;
  source: string;
}

interface Keyed extends PendingScan {
  /** what its scan is kept under (scanKeys) */
  key: string;
}

/**
 * The stored scans of those keys that have one, and the keys whose row is old enough to be stored
 * again (its date refreshed: the purge removes only scans no report has read for a while).
 */
export type StoredScans = (
  keys: string[],
) => Promise<{ scans: ReadonlyMap<string, ContentScan>; stale: string[] }>;

/**
 * Contents handed to one thread at a time: at most this many, or this many characters, tens of
 * milliseconds of work, so that a thread spends little of its time waiting for its next chunk.
 */
const CHUNK_CONTENTS = 400;
const CHUNK_CHARS = 384 * 1024;
/**
 * A content this long is never scanned on the event loop (the engine reads about 15 KB a
 * millisecond), and a chunk this small never goes to a thread: the trip would cost more than it saves.
 */
const WORKER_CHARS = 64 * 1024;
/** Contents scanned on the event loop between two turns of it: a few milliseconds. */
const PER_TURN = 8;
/**
 * Chunks in worker threads at once: one core is the event loop's, which scans too, and the pool has
 * four threads at most. No more: the pool starts a thread for a task that finds none idle, and a
 * thread takes about a second of a core to start, which a report on a small machine cannot spare.
 */
const WORKER_LANES = Math.max(1, Math.min(4, availableParallelism() - 1));

export interface Chunk<T extends { source: string }> {
  items: T[];
  chars: number;
  /** every content short enough to be scanned on the event loop */
  inPlace: boolean;
}

/** Contents in the order given, cut into what one thread is handed at a time. */
export function chunksOf<T extends { source: string }>(items: readonly T[]): Array<Chunk<T>> {
  const chunks: Array<Chunk<T>> = [];
  let current: Chunk<T> = { items: [], chars: 0, inPlace: true };
  for (const item of items) {
    if (current.items.length >= CHUNK_CONTENTS || current.chars + item.source.length > CHUNK_CHARS) {
      if (current.items.length > 0) chunks.push(current);
      current = { items: [], chars: 0, inPlace: true };
    }
    current.items.push(item);
    current.chars += item.source.length;
    if (item.source.length >= WORKER_CHARS) current.inPlace = false;
  }
  if (current.items.length > 0) chunks.push(current);
  return chunks;
}

/**
 * What a content's scan is kept under, in the cache and in the store: the project's variables and
 * the source, by digest, which is everything a scan depends on, and SCAN_VERSION: stored scans
 * outlive the code that made them.
 */
export function scanKeys(variables: Variables): (source: string) => string {
  const variablesKey = sourceDigest(JSON.stringify(variables));
  return (source) => `${SCAN_VERSION}:${variablesKey}:${sourceDigest(source)}`;
}

/** Approximate characters a scan holds, for the cache's budget. */
export function scanWeight(scan: ContentScan): number {
  let weight = 32;
  for (const link of scan.links) weight += link.href.length + link.text.length + 24;
  for (const anchor of scan.anchors) weight += anchor.length + 8;
  return weight;
}

/**
 * Scans contents on every thread at hand: worker threads take chunks while the event loop scans
 * others in short turns between requests, each taking the next chunk when done, so a large version
 * is read by all cores at once. Contents are read from the database only as fast as they are
 * scanned. A small version never leaves the event loop. A scan depends on nothing but the source and
 * the variables, so the cache answers for every content unchanged since an earlier report, and the
 * store (link_scans) for every content scanned before by any instance: by an earlier report, or in
 * the background when the content was written (link-scans.warmer.ts).
 */
export class ContentScanner {
  private readonly queue: Array<Chunk<Keyed>> = [];
  private reading: Promise<boolean> | null = null;
  private exhausted = false;
  private failed = false;
  private readonly keyOf: (source: string) => string;
  /** what this run scanned, for the caller to store once the report has its answer */
  readonly made: StoredScan[] = [];

  constructor(
    private readonly workers: WorkerPool,
    private readonly cache: LruCache<ContentScan>,
    private readonly variables: Variables,
    /** the next contents to scan; an empty array when there are no more */
    private readonly read: () => Promise<PendingScan[]>,
    private readonly stored: StoredScans,
    private readonly found: (item: PendingScan, scan: ContentScan) => void,
  ) {
    this.keyOf = scanKeys(variables);
  }

  async run(): Promise<void> {
    const lanes = [this.lane('event loop')];
    for (let i = 0; i < WORKER_LANES; i += 1) lanes.push(this.lane('worker'));
    // Every lane ends before the report does (nothing may go on reading after the answer), and
    // once one has failed the others take no more chunks.
    const results = await Promise.allSettled(lanes);
    const failed = results.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  private async lane(kind: 'event loop' | 'worker'): Promise<void> {
    try {
      for (let chunk = await this.next(kind); chunk !== null; chunk = await this.next(kind)) {
        if (kind === 'worker') await this.inWorker(chunk);
        else await this.inPlace(chunk);
      }
    } catch (error) {
      this.failed = true;
      throw error;
    }
  }

  /** The first chunk this lane may take, reading more when none is left; null at the end. */
  private async next(kind: 'event loop' | 'worker'): Promise<Chunk<Keyed> | null> {
    for (;;) {
      const at = this.queue.findIndex((c) => (kind === 'worker' ? c.chars >= WORKER_CHARS : c.inPlace));
      if (this.failed) return null;
      if (at >= 0) return this.queue.splice(at, 1)[0] ?? null;
      if (this.exhausted) return null;
      // One read at a time (one snapshot, one connection); the lanes waiting share its result.
      this.reading ??= this.read().then(async (items) => {
        if (items.length === 0) this.exhausted = true;
        else this.queue.push(...chunksOf(await this.unknown(items)));
        this.reading = null;
        return true;
      });
      await this.reading;
    }
  }

  /**
   * Reports what the cache holds, then what the store holds (one query for the batch, its scans
   * cached for the next report); the rest is to be scanned.
   */
  private async unknown(items: readonly PendingScan[]): Promise<Keyed[]> {
    const missed: Keyed[] = [];
    for (const item of items) {
      const key = this.keyOf(item.source);
      const cached = this.cache.get(key);
      if (cached === undefined) missed.push({ ...item, key });
      else this.found(item, cached);
    }
    if (missed.length === 0) return missed;
    const stored = await this.stored([...new Set(missed.map((item) => item.key))]);
    for (const key of stored.stale) {
      const scan = stored.scans.get(key);
      if (scan !== undefined) this.made.push({ key, scan });
    }
    const rest: Keyed[] = [];
    for (const item of missed) {
      const scan = stored.scans.get(item.key);
      if (scan === undefined) {
        rest.push(item);
      } else {
        this.cache.set(item.key, scan);
        this.found(item, scan);
      }
    }
    return rest;
  }

  private scanned(item: Keyed, scan: ContentScan): void {
    this.cache.set(item.key, scan);
    this.made.push({ key: item.key, scan });
    this.found(item, scan);
  }

  private async inPlace(chunk: Chunk<Keyed>): Promise<void> {
    for (const [i, item] of chunk.items.entries()) {
      if (i % PER_TURN === 0) await setImmediate();
      this.scanned(item, scanContent(item.source, this.variables));
    }
  }

  private async inWorker(chunk: Chunk<Keyed>): Promise<void> {
    const sources = chunk.items.map((item) => item.source);
    const { scans } = await reportTask(() =>
      this.workers.run({ kind: 'scanLinks', sources, variables: this.variables }),
    );
    chunk.items.forEach((item, i) => this.scanned(item, scans[i] ?? { links: [], anchors: [] }));
  }
}

/** A worker task of the report: its failure is a 503, the version is fine. */
export const reportTask = <T>(task: () => Promise<T>): Promise<T> =>
  unavailableIfTaskFails('The broken-links report could not be made', task);
