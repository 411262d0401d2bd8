import { setImmediate } from 'node:timers/promises';
import type { CommittedSubscriber } from '../changes/change-events.ts';
import { contentWrites } from '../changes/content-writes.ts';
import { SettleTimer } from '../../shared/settle-timer.ts';
import type { PageRenderer } from './pages.renderer.ts';
import type { PageQueries } from './pages.reads.repository.ts';

/** Pages queued at most; past it a change's pages are left to their first read. */
const MAX_QUEUED = 50_000;

/**
 * Renders the HTML of pages whose contents changed, shortly after the change, so that their first
 * read finds it stored (rendered-store.ts) rather than rendering it (decision 0018). Pages are read
 * from the read connection one at a time and rendered in a worker thread; the event loop only reads
 * them and keeps the outputs. Best effort: a page not found (not yet visible to the read connection,
 * or gone again) or a render that fails is left to its first read, which renders it as before.
 */
export class RenderAhead {
  private queued = new Map<number, Set<number>>();
  private size = 0;
  private readonly timer = new SettleTimer(() => this.start());
  private running: Promise<void> | null = null;
  private closed = false;
  private failed = 0;
  private prepared = 0;
  private taken = 0;

  constructor(
    private readonly queries: PageQueries,
    private readonly renderer: PageRenderer,
  ) {}

  /** Pages queued so far (once per change that wrote them), rendered ahead, and failed. */
  stats(): { queued: number; prepared: number; failures: number } {
    return { queued: this.taken, prepared: this.prepared, failures: this.failed };
  }

  queue(projectId: number, pageIds: Iterable<number>): void {
    if (this.closed) return;
    let ids = this.queued.get(projectId);
    if (ids === undefined) this.queued.set(projectId, (ids = new Set()));
    for (const id of pageIds) {
      if (this.size >= MAX_QUEUED) break;
      this.taken += 1;
      if (!ids.has(id)) this.size += 1;
      ids.add(id);
    }
    this.schedule();
  }

  /** (Re)arms the debounce; work under way is left to finish, and looks for more when it has. */
  private schedule(): void {
    if (this.closed || this.running !== null) return;
    this.timer.arm();
  }

  /** Resolves once nothing is queued or running, starting queued work at once. */
  async idle(): Promise<void> {
    while (this.running !== null || this.size > 0) {
      if (this.running === null) this.start();
      await this.running;
    }
  }

  /** Stops: nothing more starts, and the page under way is waited for. */
  async close(): Promise<void> {
    this.closed = true;
    this.timer.disarm();
    this.queued.clear();
    this.size = 0;
    await this.running;
  }

  private start(): void {
    this.timer.disarm();
    if (this.closed || this.running !== null) return;
    this.timer.started();
    const work = [...this.queued];
    this.queued = new Map();
    this.size = 0;
    this.running = this.run(work).finally(() => {
      this.running = null;
      if (this.size > 0) this.schedule();
    });
  }

  private async run(work: ReadonlyArray<[number, Set<number>]>): Promise<void> {
    for (const [projectId, ids] of work) {
      for (const id of ids) {
        if (this.closed) return;
        try {
          const view = await this.queries.readView(undefined, projectId, id);
          if (view !== undefined) {
            await this.renderer.prepare(view, 'html');
            this.prepared += 1;
          }
        } catch {
          this.failed += 1;
        }
        await setImmediate();
      }
    }
  }
}

/**
 * Queues, once the change has committed, the pages whose contents it wrote (contentWrites); a change
 * rolled back queues nothing. A clone's pages hold their sources' contents under the same keys:
 * stored already, or left to their first reads.
 */
export function renderAheadSubscriber(ahead: RenderAhead): CommittedSubscriber {
  return ({ event }) => {
    const written = contentWrites(event);
    if (written !== null && written.pageIds.length > 0) ahead.queue(event.projectId, written.pageIds);
  };
}
