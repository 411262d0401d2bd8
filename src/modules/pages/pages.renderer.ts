import { setImmediate } from 'node:timers/promises';
import { autoLinkTargets, type RenderContext } from '../../content/index.ts';
import type { Executor } from '../../db/executor.ts';
import { JsonBytes, sourceDigest, utf8Text, type Rendered } from '../../shared/serialised.ts';
import type { PageQueries, PageView, Source } from './pages.reads.repository.ts';
import type { PageFormat } from './pages.schemas.ts';
import { LruCache } from '../../shared/lru-cache.ts';
import type { RenderedStore } from './rendered-store.ts';
import { engineFingerprint } from './engine-fingerprint.ts';
import { LinkTitles } from './link-titles.ts';
import { markdocLinks } from './markdoc-links.ts';
import { isLarge, type RenderEngine } from './render-engine.ts';

export interface RenderCacheOptions {
  /**
   * what rendered contents and the titles their links name may weigh, keys included (default
   * 128 MiB; CACHE_MEMORY_MB sets it): an eighth for the titles, the rest for the contents
   */
  maxBytes?: number;
  /** outputs kept in the database, found where memory has none and stored when made */
  store?: RenderedStore;
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
/** Small sources are decoded here; large ones go to a thread as they are. */
const smallAsText = (source: Source | null): Source | null =>
  source === null || isLarge(source) ? source : utf8Text(source);

/** How contents are read: in a transaction, ahead of any read, or under a project's change stamp. */
export interface ContentsOptions {
  /** the transaction the read runs in, if any */
  trx?: Executor;
  /** rendering ahead of reads: each render in a worker thread */
  ahead?: boolean;
  /** the project's change stamp, read before the page was: link titles read under it are kept */
  stamp?: string | null;
}

/**
 * An output as the JSON string it is sent as, in UTF-8: escaped once when made, then spliced into
 * each answer that misses the answer cache (escaping the html of a page's two contents cost 31 µs,
 * more than reading the page) and kept off the JavaScript heap.
 */
const asJson = (output: string): JsonBytes => new JsonBytes(Buffer.from(JSON.stringify(output)));

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
 * name, and the project's variables. Those titles are looked up on every read that needs a render's
 * key (src/modules/pages/link-titles.ts: kept under the project's change stamp, one indexed query for
 * those not kept), so a renamed target shows its new title on the next read, whichever instance
 * renamed it, while an unchanged page is never rendered twice.
 */
export class PageRenderer {
  private readonly cache: LruCache<JsonBytes>;
  private renders = 0;
  private readonly store: RenderedStore | null;
  private readonly titles: LinkTitles;

  constructor(
    private readonly queries: PageQueries,
    private readonly engine: RenderEngine,
    options: RenderCacheOptions = {},
  ) {
    this.store = options.store ?? null;
    const budget = options.maxBytes ?? 128 * 1024 * 1024;
    // An eighth: about 50,000 titles in the default budget; the contents keep the rest.
    const titleBytes = Math.floor(budget / 8);
    this.titles = new LinkTitles(queries, titleBytes);
    const maxBytes = budget - titleBytes;
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

  /** Lookups of [auto$] link targets' titles: a hit needed no query. */
  linkTitleStats(): { hits: number; misses: number } {
    return this.titles.stats();
  }

  /**
   * The page's contents in `format`. Sources of WORKER_RENDER_CHARS or more are inspected (digest,
   * link targets), rendered and serialised in a worker thread, and come back as JSON bytes: none of
   * that work, nor a copy of a large output as a string, lands on the event loop.
   */
  async contents(
    view: PageView<Source>,
    format: PageFormat,
    { trx, ahead = false, stamp = null }: ContentsOptions = {},
  ): Promise<RenderedContents> {
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
    if (format === 'markdoc') return this.markdoc(view, draft, published, trx);

    const [draftFacts, publishedFacts] = await Promise.all([this.inspect(draft), this.inspect(published)]);
    const targets = [...(draftFacts?.linkTargets ?? []), ...(publishedFacts?.linkTargets ?? [])];
    const pageTitles =
      targets.length === 0
        ? new Map<string, string>()
        : await this.titles.of(trx, view.version_id, targets, stamp);
    const ctx: RenderContext = { pageTitles, variables: this.engine.variablesOf(view.variables) };
    const [draftOut, publishedOut] = await Promise.all([
      draft === null || draftFacts === null
        ? null
        : this.render(draft, draftFacts, format, ctx, view.variables, ahead),
      published === null || publishedFacts === null
        ? null
        : this.render(published, publishedFacts, format, ctx, view.variables, ahead),
    ]);
    return { draft: draftOut, published: publishedOut };
  }

  /**
   * Renders the page's contents in `format` ahead of any read, each in a worker thread, where memory
   * and the store have none: the event loop only looks them up and keeps them.
   */
  async prepare(view: PageView<Source>, format: Exclude<PageFormat, 'darkdown'>): Promise<void> {
    await this.contents(view, format, { ahead: true });
  }

  /**
   * Markdoc links to pages by their files' places in the version, so its output depends on the
   * version's whole tree: it is rendered on each read, not kept (the answer cache keeps it under the
   * project's change stamp, which every move of a page changes).
   */
  private async markdoc(
    view: PageView<Source>,
    draft: Source | null,
    published: Source | null,
    trx: Executor | undefined,
  ): Promise<RenderedContents> {
    const ctx: RenderContext = {
      markdoc: markdocLinks(await this.queries.pageFiles(trx, view.version_id), view.id),
    };
    const one = async (source: Source | null): Promise<Rendered | null> => {
      if (source === null) return null;
      this.renders++;
      return isLarge(source)
        ? this.engine.inThread(source, 'markdoc', ctx, 'page')
        : asJson(this.engine.here(utf8Text(source), 'markdoc', ctx));
    };
    const [draftOut, publishedOut] = await Promise.all([one(draft), one(published)]);
    return { draft: draftOut, published: publishedOut };
  }

  private async asIs(source: Source | null): Promise<Rendered | null> {
    return source === null ? null : this.engine.asIs(source, 'page');
  }

  /** What the cache key and the link titles need from a source: here, or in a thread when large. */
  private async inspect(source: Source | null): Promise<SourceFacts | null> {
    if (source === null) return null;
    if (!isLarge(source)) {
      const text = utf8Text(source);
      return { digest: sourceDigest(text), linkTargets: autoLinkTargets(text) };
    }
    return this.engine.inspectInThread(source, 'page');
  }

  /** Cached output, or a render: here for ordinary pages, in a worker thread for large ones. */
  private async render(
    source: Source,
    facts: SourceFacts,
    format: Exclude<PageFormat, 'darkdown'>,
    ctx: RenderContext,
    variablesText: string,
    inThread: boolean,
  ): Promise<JsonBytes> {
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
    // In the database the context is always a digest: its separators are control characters, which
    // PostgreSQL's text refuses.
    const storedKey =
      this.store === null
        ? ''
        : `${engineFingerprint()}:${format}:${facts.digest}:${context === '' ? '' : sourceDigest(context)}`;
    const stored = this.store === null ? undefined : await this.store.find(storedKey);
    if (stored !== undefined) {
      this.cache.set(key, stored);
      return stored;
    }
    const output =
      inThread || isLarge(source)
        ? await this.engine.inThread(source, format, ctx, 'page')
        : asJson(this.engine.here(utf8Text(source), format, ctx));
    this.renders++;
    this.cache.set(key, output);
    this.store?.keep(storedKey, output);
    return output;
  }
}
