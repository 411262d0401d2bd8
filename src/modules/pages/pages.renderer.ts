import { hash } from 'node:crypto';
import { autoLinkTargets, renderContent, type RenderContext } from '../../content/index.ts';
import type { Executor } from '../../db/executor.ts';
import { ServiceUnavailableError } from '../../errors.ts';
import { TaskFailedError, type WorkerPool } from '../../workers/pool.ts';
import type { PageQueries, PageView } from './pages.repository.ts';
import type { PageFormat } from './pages.schemas.ts';
import { LruCache } from './render-cache.ts';

export interface RenderCacheOptions {
  /** rendered contents kept (default 20,000) */
  maxEntries?: number;
  /** characters kept, keys included (default 64 Mi) */
  maxChars?: number;
}

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
const digest = (text: string): string => hash('sha1', text, 'base64url');

/**
 * Page contents in the format asked for. Rendering is cached by what the output depends on, and on
 * nothing else: the format, the source (by hash), the titles of exactly the pages its [auto$] links
 * name, and the project's variables. Those titles are read on every read (one indexed query, only for
 * contents that have such links), so a renamed target shows its new title on the next read, whichever
 * instance renamed it, while an unchanged page is never rendered twice.
 */
export class PageRenderer {
  private readonly cache: LruCache<string>;
  private readonly variables = new LruCache<Readonly<Record<string, unknown>>>(256, 4_000_000, () => 1);
  private renders = 0;

  constructor(
    private readonly queries: PageQueries,
    private readonly workers: WorkerPool,
    options: RenderCacheOptions = {},
  ) {
    this.cache = new LruCache(
      options.maxEntries ?? 20_000,
      options.maxChars ?? 64 * 1024 * 1024,
      (v) => v.length,
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

  /** `trx`: the transaction the read runs in, if any. */
  async contents(
    view: PageView,
    format: PageFormat,
    trx?: Executor,
  ): Promise<{ draft: string | null; published: string | null }> {
    const draft = view.content_draft;
    const published = view.content_published;
    if (format === 'darkdown' || (draft === null && published === null)) return { draft, published };

    const draftTargets = draft === null ? [] : autoLinkTargets(draft);
    const publishedTargets = published === null ? [] : autoLinkTargets(published);
    const pageTitles = await this.linkTitles(trx, view.version_id, [...draftTargets, ...publishedTargets]);
    const ctx: RenderContext = { pageTitles, variables: this.parseVariables(view.variables) };
    const [draftOut, publishedOut] = await Promise.all([
      draft === null ? null : this.render(draft, draftTargets, format, ctx, view.variables),
      published === null ? null : this.render(published, publishedTargets, format, ctx, view.variables),
    ]);
    return { draft: draftOut, published: publishedOut };
  }

  /** Cached output, or a render: here for ordinary pages, in a worker thread for large ones. */
  private render(
    source: string,
    targets: readonly string[],
    format: PageFormat,
    ctx: RenderContext,
    variablesText: string,
  ): string | Promise<string> {
    let context = '';
    if (targets.length > 0 || variablesText !== '{}') {
      const titles = [...targets].sort().map((key) => `${key}\u0000${ctx.pageTitles?.get(key) ?? '\u0003'}`);
      context = `${titles.join('\u0001')}\u0002${variablesText}`;
      // A short context is its own key, which spares a second hash on most reads.
      if (context.length > MAX_PLAIN_CONTEXT) context = digest(context);
    }
    const key = `${format}:${digest(source)}:${context}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    if (source.length >= WORKER_RENDER_CHARS && format !== 'darkdown') {
      return this.renderInWorker(key, source, format, ctx);
    }
    const output = renderContent(source, format, ctx) ?? '';
    this.renders++;
    this.cache.set(key, output);
    return output;
  }

  private async renderInWorker(
    key: string,
    source: string,
    format: Exclude<PageFormat, 'darkdown'>,
    ctx: RenderContext,
  ): Promise<string> {
    let output: string;
    try {
      ({ output } = await this.workers.run({ kind: 'render', source, format, ctx }));
    } catch (error) {
      if (!(error instanceof TaskFailedError)) throw error;
      throw new ServiceUnavailableError(`The page could not be rendered: it ${error.message}.`, 5);
    }
    this.renders++;
    this.cache.set(key, output);
    return output;
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
  private parseVariables(text: string): Readonly<Record<string, unknown>> {
    const known = this.variables.get(text);
    if (known !== undefined) return known;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = {};
    }
    const value =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    this.variables.set(text, value);
    return value;
  }
}
