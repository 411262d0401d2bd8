import { renderContent, type RenderContext } from '../../content/index.ts';
import { LruCache } from '../../shared/lru-cache.ts';
import { JsonBytes, parseVariables, utf8Text, type Rendered } from '../../shared/serialised.ts';
import type { WorkerPool } from '../../workers/pool.ts';
import { unavailableIfTaskFails } from '../../workers/task-unavailable.ts';
import type { PageFormat } from './pages.schemas.ts';
import type { Source } from './pages.reads.repository.ts';

/**
 * Sources from this many characters on render in a worker thread: the engine takes about a
 * millisecond per 3 KB, so a smaller page costs the event loop less than the trip to a thread would.
 */
export const WORKER_RENDER_CHARS = 64 * 1024;

export const isLarge = (source: Source | null): source is Source =>
  source !== null && source.length >= WORKER_RENDER_CHARS;

/**
 * The Darkdown engine as pages and changelog posts use it: here for ordinary sizes, in a worker
 * thread for large sources (whose output comes back as JSON bytes, never a string on the event
 * loop), with the project's variables parsed once per text. A worker task that fails is a 503 named
 * after what was being rendered (`what`: "page", "post"): the contents are fine.
 */
export class RenderEngine {
  private readonly variables = new LruCache<Readonly<Record<string, unknown>>>(256, 4_000_000, () => 1);

  constructor(private readonly workers: WorkerPool) {}

  /** Variables are JSON text kept by the project; anything but an object means no variables. */
  variablesOf(text: string): Readonly<Record<string, unknown>> {
    const known = this.variables.get(text);
    if (known !== undefined) return known;
    const value = parseVariables(text);
    this.variables.set(text, value);
    return value;
  }

  /** Darkdown is the stored text; a large one is serialised in a thread all the same. */
  async asIs(source: Source, what: string): Promise<Rendered> {
    if (!isLarge(source)) return utf8Text(source);
    return this.inThread(source, 'darkdown', {}, what);
  }

  /** Renders on the event loop: for sources under WORKER_RENDER_CHARS. */
  here(text: string, format: Exclude<PageFormat, 'darkdown'>, ctx: RenderContext): string {
    return renderContent(text, format, ctx) ?? '';
  }

  /** Renders and serialises in a worker thread. */
  inThread(source: Source, format: PageFormat, ctx: RenderContext, what: string): Promise<JsonBytes> {
    const run = async () => new JsonBytes(await this.workers.run({ kind: 'render', source, format, ctx }));
    return this.task(what, run);
  }

  /** A large source's digest and the targets of its [auto$] links, read in a worker thread. */
  inspectInThread(source: Source, what: string): Promise<{ digest: string; linkTargets: string[] }> {
    return this.task(what, () => this.workers.run({ kind: 'inspect', source }));
  }

  private task<T>(what: string, run: () => Promise<T>): Promise<T> {
    return unavailableIfTaskFails(`The ${what} could not be rendered`, run);
  }
}
