import { setImmediate } from 'node:timers/promises';
import type { Clock } from '../../clock.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import { PreparedRead } from '../../db/prepared.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { JsonBytes } from '../../shared/serialised.ts';
import { renderedRepository as repo, type StoredRow } from './pages.rendered.repository.ts';

/** Stored outputs are kept this long after they were last stored or found; then the purge removes them. */
export const KEEP_RENDERED_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How long outputs wait to be stored, so that a burst of reads is stored in a few statements. */
const SAVE_DELAY_MS = 100;
/** Rows one insert writes: at most a few hundred kilobytes for ordinary pages. */
const ROWS_PER_INSERT = 100;
/** Rows one delete of the purge removes, each its own statement: none holds the write lock long. */
const ROWS_PER_DELETE = 1000;
/** Outputs waiting to be stored at most; past it new ones are not kept (a later read stores them). */
const MAX_PENDING = 5_000;
/** Outputs one step of an eviction removes at most, the oldest first, in one statement. */
const ROWS_PER_EVICTION = 500;
/** An eviction brings the store down to this share of its cap, so that the next saves find room. */
const EVICT_TO = 0.9;

export interface StoredRenderStats {
  hits: number;
  misses: number;
  /** outputs written to the table so far by this instance */
  stored: number;
  /** saves or lookups that failed: each only left a render to a later read */
  failures: number;
}

/**
 * The second tier of the render cache (decision 0018): outputs kept in the database, under a key
 * naming everything they depend on, so that a page is rendered once per change of what it depends on
 * rather than once per process and per eviction. Any instance finds what another stored; a restart
 * finds what was stored before it. Lookups are one point read on the read connection; outputs are
 * stored shortly after they were made, several in one statement, through the writer. Best effort
 * throughout: a lookup or save that fails is counted, and the page is rendered as if nothing were
 * stored.
 */
export class RenderedStore {
  private readonly read: PreparedRead<[key: string], StoredRow>;
  /** outputs waiting to be stored, as JSON text, by key */
  private pending = new Map<string, string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private readonly counts = { hits: 0, misses: 0, stored: 0, failures: 0 };
  /** what the store weighed when last measured, plus what this instance stored since; null: not measured */
  private estimate: number | null = null;
  private evicting: Promise<number> | null = null;

  /** `capBytes`: what the stored outputs may weigh together (RENDER_STORE_MB). */
  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly capBytes: number,
  ) {
    this.read = new PreparedRead(database, 1, repo.byKey);
  }

  stats(): StoredRenderStats {
    return { ...this.counts };
  }

  /**
   * The output stored under `key`, as the JSON an answer sends, or undefined. One found halfway to
   * the purge, or stored as plain text by an earlier Quire, is stored again (as JSON).
   */
  async find(key: string): Promise<JsonBytes | undefined> {
    let row: StoredRow | undefined;
    try {
      row = await this.read.first(undefined, key);
    } catch {
      this.counts.failures += 1;
      return undefined;
    }
    if (row === undefined) {
      this.counts.misses += 1;
      return undefined;
    }
    this.counts.hits += 1;
    const json = row.json === 1 ? row.body : JSON.stringify(row.body);
    if (row.json !== 1 || row.created < toStoredDate(this.clock.now() - (KEEP_RENDERED_DAYS / 2) * DAY_MS)) {
      this.queue(key, json);
    }
    return new JsonBytes(Buffer.from(json));
  }

  /** Stores an output made by a render, shortly. */
  keep(key: string, output: JsonBytes): void {
    this.queue(
      key,
      Buffer.from(output.bytes.buffer, output.bytes.byteOffset, output.bytes.byteLength).toString(),
    );
  }

  /** Resolves once what waits to be stored has been (or failed to be). */
  async idle(): Promise<void> {
    while (this.running !== null || this.pending.size > 0) {
      if (this.running === null) this.start();
      await this.running;
    }
  }

  /** Stores what waits, then takes no more. */
  async close(): Promise<void> {
    await this.idle();
    this.closed = true;
  }

  /** Removes outputs neither stored nor found for KEEP_RENDERED_DAYS; the number removed. */
  async purge(): Promise<number> {
    const before = toStoredDate(this.clock.now() - KEEP_RENDERED_DAYS * DAY_MS);
    let purged = 0;
    for (;;) {
      const count = await repo.purge(this.database.db, before, ROWS_PER_DELETE);
      purged += count;
      if (count < ROWS_PER_DELETE) {
        this.estimate = null;
        return purged;
      }
    }
  }

  /** What the stored outputs weigh together, in bytes (the `/metrics` gauge). */
  bytes(): Promise<number> {
    return repo.totalBytes(this.database.reader);
  }

  /**
   * Holds the store under its cap: when it weighs more, removes the outputs stored or found longest
   * ago until it weighs EVICT_TO of the cap. Run after saves that may have passed the cap (by this
   * instance's estimate) and by the jobs room (for what other instances stored); one at a time.
   * The number of outputs removed.
   */
  evict(): Promise<number> {
    this.evicting ??= this.shrink().finally(() => {
      this.evicting = null;
    });
    return this.evicting;
  }

  private async shrink(): Promise<number> {
    const db = this.database.db;
    let total = await repo.totalBytes(db);
    let removed = 0;
    if (total > this.capBytes) {
      const target = this.capBytes * EVICT_TO;
      while (total > target) {
        const oldest = await repo.oldest(db, ROWS_PER_EVICTION);
        if (oldest.length === 0) break;
        const keys: string[] = [];
        for (const row of oldest) {
          if (total <= target) break;
          keys.push(row.key);
          total -= Number(row.bytes);
        }
        removed += await repo.remove(db, keys);
        await setImmediate();
      }
    }
    this.estimate = total;
    return removed;
  }

  private queue(key: string, json: string): void {
    if (this.closed || this.pending.size >= MAX_PENDING) return;
    this.pending.set(key, json);
    if (this.timer === null && this.running === null) {
      this.timer = setTimeout(() => this.start(), SAVE_DELAY_MS);
      this.timer.unref();
    }
  }

  private start(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.running !== null) return;
    const batch = [...this.pending];
    this.pending = new Map();
    this.running = this.save(batch).finally(() => {
      this.running = null;
      if (this.pending.size > 0 && !this.closed) {
        this.timer = setTimeout(() => this.start(), SAVE_DELAY_MS);
        this.timer.unref();
      }
    });
  }

  /**
   * Inserts in statements of ROWS_PER_INSERT, a turn of the event loop apart (the SQLite driver does
   * not yield). A key stored already takes the new row: its output is the same, as the key names
   * everything the output depends on, now with a new date and as JSON where it was plain text.
   */
  private async save(entries: ReadonlyArray<[string, string]>): Promise<void> {
    const created = toStoredDate(this.clock.now());
    for (let start = 0; start < entries.length; start += ROWS_PER_INSERT) {
      const rows = entries
        .slice(start, start + ROWS_PER_INSERT)
        .map(([key, body]) => ({ key, body, json: 1, created, bytes: Buffer.byteLength(key + body) }));
      try {
        await repo.store(this.database.db, rows);
        this.counts.stored += rows.length;
        if (this.estimate !== null) this.estimate += rows.reduce((sum, row) => sum + row.bytes, 0);
      } catch {
        this.counts.failures += 1;
      }
      await setImmediate();
    }
    if (this.estimate === null || this.estimate > this.capBytes) {
      await this.evict().catch(() => {
        this.counts.failures += 1;
      });
    }
  }
}
