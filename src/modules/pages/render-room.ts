import type { Clock } from '../../clock.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import type { WorkerPool } from '../../workers/pool.ts';
import { PageQueries } from './pages.reads.repository.ts';
import { PageRenderer } from './pages.renderer.ts';
import { PostRenderer } from './post-renderer.ts';
import { RenderAhead } from './render-ahead.ts';
import { RenderEngine } from './render-engine.ts';
import { RenderedStore } from './rendered-store.ts';

/**
 * Rendering and what keeps its outputs, built once per app at the composition root and handed to
 * whoever renders contents (decision 0024): one engine (variables, worker threads, the 503 when a
 * thread fails), the page renderer with its memory cache and the titles its [auto$] links show, the
 * outputs stored in the database under the engine's fingerprint, rendering ahead, and the changelog
 * post renderer.
 */
export class RenderRoom {
  /** rendered outputs kept in the database (decision 0018) */
  readonly stored: RenderedStore;
  readonly pages: PageRenderer;
  readonly posts: PostRenderer;
  /** renders the HTML of changed pages in the background, once their changes committed */
  readonly ahead: RenderAhead;

  /**
   * `maxBytes`: what rendered contents and link titles may weigh in memory (CACHE_MEMORY_MB's half);
   * `storeBytes`: what outputs stored in the database may weigh (RENDER_STORE_MB).
   */
  constructor(
    database: DatabaseHandle,
    clock: Clock,
    workers: WorkerPool,
    maxBytes: number,
    storeBytes: number,
  ) {
    const queries = new PageQueries(database);
    const engine = new RenderEngine(workers);
    this.stored = new RenderedStore(database, clock, storeBytes);
    this.pages = new PageRenderer(queries, engine, { maxBytes, store: this.stored });
    this.posts = new PostRenderer(engine);
    this.ahead = new RenderAhead(queries, this.pages);
  }

  /** Background work first (it stores what it renders), then the outputs still waiting to be stored. */
  async close(): Promise<void> {
    await this.ahead.close();
    await this.stored.close();
  }
}
