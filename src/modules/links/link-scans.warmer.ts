import { setImmediate } from 'node:timers/promises';
import type { Clock } from '../../clock.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { parseVariables } from '../../shared/serialised.ts';
import { SettleTimer } from '../../shared/settle-timer.ts';
import type { WorkerPool } from '../../workers/pool.ts';
import { linkScansRepository as store, type StoredScan } from './link-scans.repository.ts';
import { linksRepository as links, type LinkContentRow } from './links.repository.ts';
import { chunksOf, scanKeys } from './links.scanner.ts';

/** Pages whose contents one read gives, at most; and at most this many bytes of them. */
const PAGES_PER_READ = 50;
const READ_BYTES = 1024 * 1024;
/** Scans one statement stores, one turn of the event loop each (the SQLite driver does not yield). */
const SCANS_PER_SAVE = 250;
/**
 * A page or version the read connection does not see yet was written by a transaction still open
 * (an import runs for minutes in one) or rolled back: it is looked for again after 1, 2, 4… seconds,
 * about a minute in all, then forgotten. A page changed in a transaction still open gets its former
 * content scanned: a report then scans the new one itself.
 */
const RETRIES = 6;
const RETRY_MS = 1_000;
/** Stored scans are kept this long; the purge removes older ones, which a report would make again. */
export const KEEP_SCANS_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Page and version ids queued in a project, each with the tries made to find it. */
interface ProjectWork {
  pages: Map<number, number>;
  versions: Map<number, number>;
}

type Variables = Readonly<Record<string, unknown>>;

/**
 * Keeps link_scans ahead of the broken-links report: the contents a change writes are scanned in the
 * background, shortly after, so the report reads their scans instead of parsing them. The change
 * subscriber (link-scans.events.ts) only queues ids, once the change has committed; the work starts
 * once the changes have settled, reads from the read connection, skips what is stored already, scans
 * one chunk at a time in one worker thread, and stores the scans through the writer. It also stores
 * the scans a report had to make. It is best effort throughout: whatever fails, a report scans itself
 * (and stores the result), so a failure is counted and nothing else.
 */
export class LinkScanWarmer {
  private readonly queued = new Map<number, ProjectWork>();
  private toStore: StoredScan[] = [];
  private readonly timer = new SettleTimer(() => this.start());
  private readonly retries = new Set<ReturnType<typeof setTimeout>>();
  private running: Promise<void> | null = null;
  /** someone waits in idle(): the work starts without waiting for more changes */
  private hurry = false;
  private closed = false;
  private waiting: Array<() => void> = [];
  private failed = 0;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly workers: WorkerPool,
    private readonly clock: Clock,
  ) {}

  /** The pages' contents are to be scanned: they were written, published or restored. */
  queuePages(projectId: number, pageIds: Iterable<number>): void {
    for (const id of pageIds) this.work(projectId).pages.set(id, 0);
    this.schedule();
  }

  /** Every live page of the version is to be scanned (a clone re-pointed them all, an import wrote them). */
  queueVersion(projectId: number, versionId: number): void {
    this.work(projectId).versions.set(versionId, 0);
    this.schedule();
  }

  /** Scans made elsewhere (by a report) are to be stored. */
  store(scans: readonly StoredScan[]): void {
    if (scans.length === 0) return;
    this.toStore.push(...scans);
    this.schedule();
  }

  /**
   * Resolves when nothing is queued or running, starting queued work at once. Ids waiting to be
   * looked for again (see RETRIES) are not waited for.
   */
  idle(): Promise<void> {
    if (this.closed || (!this.hasWork() && this.running === null)) return Promise.resolve();
    const settled = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.hurry = true;
    if (this.running === null) this.start();
    return settled;
  }

  /** Stops: no work starts any more, and the step under way (a read, a chunk) is waited for. */
  async close(): Promise<void> {
    this.closed = true;
    this.timer.disarm();
    for (const retry of this.retries) clearTimeout(retry);
    this.retries.clear();
    await this.running;
    this.settle();
  }

  /** Background steps that failed (a read, a chunk's scan, a save): each only left scans to a report. */
  get failures(): number {
    return this.failed;
  }

  /**
   * Scans stored before this date are stored again when a report reads them (their date refreshed),
   * halfway to the purge: a scan reports keep reading is never purged.
   */
  refreshBefore(): string {
    return toStoredDate(this.clock.now() - (KEEP_SCANS_DAYS / 2) * DAY_MS);
  }

  /** Removes the scans stored more than KEEP_SCANS_DAYS ago and not read since (on start, daily, `bin/quire purge`). */
  purge(): Promise<number> {
    return store.purge(this.database.db, toStoredDate(this.clock.now() - KEEP_SCANS_DAYS * DAY_MS));
  }

  private work(projectId: number): ProjectWork {
    let work = this.queued.get(projectId);
    if (work === undefined) this.queued.set(projectId, (work = { pages: new Map(), versions: new Map() }));
    return work;
  }

  private hasWork(): boolean {
    return this.queued.size > 0 || this.toStore.length > 0;
  }

  /** (Re)arms the debounce; work under way is left to finish, and looks for more when it has. */
  private schedule(): void {
    if (this.closed) return;
    this.timer.arm(this.hurry);
  }

  private start(): void {
    this.timer.disarm();
    if (this.closed || this.running !== null) return;
    this.timer.started();
    const projects = [...this.queued];
    this.queued.clear();
    const scans = this.toStore;
    this.toStore = [];
    this.running = this.run(projects, scans)
      // run() counts its steps' failures; this only makes sure no rejection goes unheard
      .catch(() => {
        this.failed += 1;
      })
      .finally(() => {
        this.running = null;
        if (this.closed) return;
        if (!this.hasWork()) this.settle();
        else if (!this.timer.armed) this.schedule();
      });
  }

  private settle(): void {
    this.hurry = false;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  private async run(projects: ReadonlyArray<[number, ProjectWork]>, scans: StoredScan[]): Promise<void> {
    for (let start = 0; start < scans.length && !this.closed; start += SCANS_PER_SAVE) {
      await this.attempt(() => this.save(scans.slice(start, start + SCANS_PER_SAVE)));
      await setImmediate();
    }
    for (const [projectId, work] of projects) {
      if (this.closed) return;
      await this.attempt(() => this.warm(projectId, work));
    }
  }

  private async attempt(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch {
      this.failed += 1;
    }
  }

  private save(scans: readonly StoredScan[]): Promise<void> {
    return store.save(this.database.db, scans, toStoredDate(this.clock.now()));
  }

  /** Scans what the project's queued pages and versions hold that is not stored yet. */
  private async warm(projectId: number, work: ProjectWork): Promise<void> {
    const reader = this.database.reader;
    const variables = parseVariables(await links.variables(reader, projectId));
    const keyOf = scanKeys(variables);
    const pages = new Map(work.pages);
    if (work.versions.size > 0) {
      const live = new Set((await links.versions(reader, projectId)).map((version) => version.id));
      for (const [versionId, tries] of work.versions) {
        if (!live.has(versionId)) {
          this.retry(projectId, 'versions', [versionId], tries + 1);
          continue;
        }
        for (const page of await links.pages(reader, versionId)) pages.set(page.id, pages.get(page.id) ?? 0);
      }
    }
    const ids = [...pages.keys()];
    for (let start = 0; start < ids.length && !this.closed; start += PAGES_PER_READ) {
      for (const batch of await this.reads(ids.slice(start, start + PAGES_PER_READ))) {
        if (this.closed) return;
        // A read answers within the turn on SQLite: one batch's reads, digests and lookups per turn.
        await setImmediate();
        const rows = await links.contents(reader, batch);
        const seen = new Set(rows.map((row) => row.id));
        const unseen = new Map<number, number[]>();
        for (const id of batch) {
          if (seen.has(id)) continue;
          const tries = (pages.get(id) ?? 0) + 1;
          let group = unseen.get(tries);
          if (group === undefined) unseen.set(tries, (group = []));
          group.push(id);
        }
        for (const [tries, unseenIds] of unseen) this.retry(projectId, 'pages', unseenIds, tries);
        await this.scanUnstored(rows, variables, keyOf);
      }
    }
  }

  /**
   * Pages split into reads of at most READ_BYTES of contents, a larger page read alone: fifty pages
   * of 4 MB were one read of 400 MB, and their digests one turn, after an import of such pages.
   */
  private async reads(ids: readonly number[]): Promise<number[][]> {
    const sizes = await links.contentBytes(this.database.reader, ids);
    const bytesOf = new Map(sizes.map((row) => [row.id, Number(row.bytes)]));
    const reads: number[][] = [];
    let read: number[] = [];
    let bytes = 0;
    for (const id of ids) {
      const size = bytesOf.get(id) ?? 0;
      if (read.length > 0 && bytes + size > READ_BYTES) {
        reads.push(read);
        read = [];
        bytes = 0;
      }
      read.push(id);
      bytes += size;
    }
    if (read.length > 0) reads.push(read);
    return reads;
  }

  /** Scans, a chunk at a time in a worker thread, the contents whose scans are not stored. */
  private async scanUnstored(
    rows: readonly LinkContentRow[],
    variables: Variables,
    keyOf: (source: string) => string,
  ): Promise<void> {
    const sources = new Map<string, string>();
    for (const row of rows) {
      const { content_published: published, content_draft: draft } = row;
      // A draft equal to the published content has the same key: it is not digested again.
      for (const source of [published, draft === published ? null : draft]) {
        if (source !== null) sources.set(keyOf(source), source);
      }
    }
    const stored = await store.stored(this.database.reader, [...sources.keys()]);
    const pending = [...sources]
      .filter(([key]) => !stored.has(key))
      .map(([key, source]) => ({ key, source }));
    for (const chunk of chunksOf(pending)) {
      if (this.closed) return;
      await this.attempt(async () => {
        const sources = chunk.items.map((item) => item.source);
        const { scans } = await this.workers.run({ kind: 'scanLinks', sources, variables });
        const made: StoredScan[] = [];
        chunk.items.forEach((item, i) => {
          const scan = scans[i];
          if (scan !== undefined) made.push({ key: item.key, scan });
        });
        await this.save(made);
      });
    }
  }

  /** Looks for ids again later (their `tries`-th time), when what wrote them may have committed. */
  private retry(projectId: number, kind: keyof ProjectWork, ids: readonly number[], tries: number): void {
    if (this.closed || tries > RETRIES) return;
    const timer = setTimeout(
      () => {
        this.retries.delete(timer);
        const queued = this.work(projectId)[kind];
        // A change queued it again meanwhile: it starts over.
        for (const id of ids) queued.set(id, Math.min(queued.get(id) ?? tries, tries));
        this.schedule();
      },
      RETRY_MS * 2 ** (tries - 1),
    );
    timer.unref();
    this.retries.add(timer);
  }
}
