import { setImmediate } from 'node:timers/promises';
import { autoLinkTargets, renderContent, type RenderContext } from '../../content/index.ts';
import type { Executor } from '../../db/executor.ts';
import { ServiceUnavailableError } from '../../errors.ts';
import { JsonBytes, parseVariables, sourceDigest, utf8Text, type Rendered } from '../../shared/serialised.ts';
import { TaskFailedError, type WorkerPool } from '../../workers/pool.ts';
import type { PageQueries, PageView, Source } from './pages.repository.ts';
import type { PageFormat } from './pages.schemas.ts';
import { LruCache } from '../../shared/lru-cache.ts';

export interface RenderCacheOptions {
  /** what rendered contents may weigh, keys included (default 128 MiB; CACHE_MEMORY_MB sets it) */
  maxBytes?: number;
}

/** What an entry costs besides its output and key: the map's bookkeeping. */
const ENTRY_OVERHEAD = 100;

export interface RenderStats {
  /** times the Darkdown engine actually ran */
  renders: number;
  hits: number;
  misses: number;
  entries: number;
}

const MAX_PLAIN_CONTEXT = 256;
/**
 * Sources from this many characters on render in a worker thread: the engine takes about a
 * millisecond per 3 KB, so a smaller page costs the event loop less than the trip to a thread would.
 */
export const WORKER_RENDER_CHARS = 64 * 1024;
const isLarge = (source: Source | null): source is Source =>
  source !== null && source.length >= WORKER_RENDER_CHARS;
/** Small sources are decoded here; large ones go to a thread as they are. */
const smallAsText = (source: Source | null): Source | null =>
  source === null || isLarge(source) ? source : utf8Text(source);

export interface RenderedContents {
  draft: Rendered | null;
  published: Rendered | null;
}

/** What a render's cache key and link titles need from a source. */
interface SourceFacts {
  digest: string;
  linkTargets: readonly string[];
}

/**
 * Page contents in the format asked for. Rendering is cached by what the output depends on, and on
 * nothing else: the format, the source (by hash), the titles of exactly the pages its [auto$] links
 * name, and the project's variables. Those titles are read on every read (one indexed query, only for
 * contents that have such links), so a renamed target shows its new title on the next read, whichever
 * instance renamed it, while an unchanged page is never rendered twice.
 */
export class PageRenderer {
  private readonly cache: LruCache<Rendered>;
  private readonly variables = new LruCache<Readonly<Record<string, unknown>>>(256, 4_000_000, () => 1);
  private renders = 0;

  constructor(
    private readonly queries: PageQueries,
    private readonly workers: WorkerPool,
    options: RenderCacheOptions = {},
  ) {
    const maxBytes = options.maxBytes ?? 128 * 1024 * 1024;
    // Weighed in bytes only: a budget, not a count, bounds what many small pages may hold.
    this.cache = new LruCache(
      Math.max(1, Math.floor(maxBytes / ENTRY_OVERHEAD)),
      maxBytes,
      (v) => v.length + ENTRY_OVERHEAD,
    );
  }

  stats(): RenderStats {
    return {
      renders: this.renders,
      hits: this.cache.hits,
      misses: this.cache.misses,
      entries: this.cache.size,
    };
  }

  /**
   * The page's contents in `format`; `trx`: the transaction the read runs in, if any. Sources of
   * WORKER_RENDER_CHARS or more are inspected (digest, link targets), rendered and serialised in a
   * worker thread, and come back as JSON bytes: none of that work, nor a copy of a large output as a
   * string, lands on the event loop.
   */
  async contents(view: PageView<Source>, format: PageFormat, trx?: Executor): Promise<RenderedContents> {
    const draft = smallAsText(view.content_draft);
    const published = smallAsText(view.content_published);
    if (isLarge(draft) || isLarge(published)) {
      // The row was read in this turn of the event loop: let what waits run before more work.
      await setImmediate();
    }
    if (format === 'darkdown') {
      const [draftOut, publishedOut] = await Promise.all([this.asIs(draft), this.asIs(published)]);
      return { draft: draftOut, published: publishedOut };
    }
    if (draft === null && published === null) return { draft, published };

    const [draftFacts, publishedFacts] = await Promise.all([this.inspect(draft), this.inspect(published)]);
    const pageTitles = await this.linkTitles(trx, view.version_id, [
      ...(draftFacts?.linkTargets ?? []),
      ...(publishedFacts?.linkTargets ?? []),
    ]);
    const ctx: RenderContext = { pageTitles, variables: this.variablesOf(view.variables) };
    const [draftOut, publishedOut] = await Promise.all([
      draft === null || draftFacts === null
        ? null
        : this.render(draft, draftFacts, format, ctx, view.variables),
      published === null || publishedFacts === null
        ? null
        : this.render(published, publishedFacts, format, ctx, view.variables),
    ]);
    return { draft: draftOut, published: publishedOut };
  }

  /** Darkdown is the stored text; a large one is serialised in a thread all the same. */
  private async asIs(source: Source | null): Promise<Rendered | null> {
    if (source === null) return null;
    if (!isLarge(source)) return utf8Text(source);
    return this.inWorker(async () => {
      const json = await this.workers.run({ kind: 'render', source, format: 'darkdown', ctx: {} });
      return new JsonBytes(json);
    });
  }

  /** What the cache key and the link titles need from a source: here, or in a thread when large. */
  private async inspect(source: Source | null): Promise<SourceFacts | null> {
    if (source === null) return null;
    if (!isLarge(source)) {
      const text = utf8Text(source);
      return { digest: sourceDigest(text), linkTargets: autoLinkTargets(text) };
    }
    return this.inWorker(() => this.workers.run({ kind: 'inspect', source }));
  }

  /** Cached output, or a render: here for ordinary pages, in a worker thread for large ones. */
  private async render(
    source: Source,
    facts: SourceFacts,
    format: Exclude<PageFormat, 'darkdown'>,
    ctx: RenderContext,
    variablesText: string,
  ): Promise<Rendered> {
    let context = '';
    if (facts.linkTargets.length > 0 || variablesText !== '{}') {
      const titles = [...facts.linkTargets]
        .sort()
        .map((key) => `${key}\u0000${ctx.pageTitles?.get(key) ?? '\u0003'}`);
      context = `${titles.join('\u0001')}\u0002${variablesText}`;
      // A short context is its own key, which spares a second hash on most reads.
      if (context.length > MAX_PLAIN_CONTEXT) context = sourceDigest(context);
    }
    const key = `${format}:${facts.digest}:${context}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    let output: Rendered;
    if (isLarge(source)) {
      output = await this.inWorker(async () => {
        const json = await this.workers.run({ kind: 'render', source, format, ctx });
        return new JsonBytes(json);
      });
    } else {
      output = renderContent(utf8Text(source), format, ctx) ?? '';
    }
    this.renders++;
    this.cache.set(key, output);
    return output;
  }

  /** A task whose thread ran out of time or memory, or died, is a 503: the page is fine. */
  private async inWorker<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (!(error instanceof TaskFailedError)) throw error;
      throw new ServiceUnavailableError(`The page could not be rendered: it ${error.message}.`, 5);
    }
  }

  private async linkTitles(
    trx: Executor | undefined,
    versionId: number,
    targets: readonly string[],
  ): Promise<Map<string, string>> {
    const titles = new Map<string, string>();
    if (targets.length === 0) return titles;
    for (const row of await this.queries.linkTitles(trx, versionId, [...new Set(targets)])) {
      titles.set(`${row.documentation_slug}/${row.slug}`, row.title);
    }
    return titles;
  }

  /** Variables are JSON text kept by the project; anything but an object means no variables. */
  private variablesOf(text: string): Readonly<Record<string, unknown>> {
    const known = this.variables.get(text);
    if (known !== undefined) return known;
    const value = parseVariables(text);
    this.variables.set(text, value);
    return value;
  }
}
