import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { NotFoundError } from '../errors.ts';
import type { ReaderVersionRow } from '../modules/readers/readers.service.ts';
import { MAX_QUERY_CHARS } from '../modules/search/search.schemas.ts';
import type { SearchResult, SearchService } from '../modules/search/search.service.ts';
import type { CounterStore } from '../ratelimit/counter-store.ts';
import type { SiteAnswer } from './site.answer.ts';
import { href, type SiteContext } from './site.context.ts';
import type { AddressContext, SiteHandler } from './site.handler.ts';
import { presentHits } from './site.search.presenter.ts';
import { SearchDocument, type ResultsPage } from './templates/search.tsx';

/** Results per page of `{site}/search`, and suggestions per answer of `{site}/search/results.json`. */
const PER_PAGE = 10;
const SUGGESTIONS = 8;
/** Pages of results past this one are not searched (no reader pages that far; each costs an offset). */
const MAX_PAGE = 100;
/** Suggestions per client address and window, before RATE_LIMIT_SCALE: one reader typing fast fits. */
const SUGGEST_LIMIT = 30;
const SUGGEST_WINDOW_MS = 10_000;

export interface SiteSearchDeps {
  search: SearchService;
  counters: CounterStore;
  clock: Clock;
  config: Config;
}

/** What a request of the search addresses asks, read from its query string. */
export interface SearchAsk {
  /** the query with control characters and unpaired surrogates made spaces, trimmed */
  q: string;
  /** why the query is not searched (too long), or null */
  refusal: string | null;
  /** from 1 */
  page: number;
  /** the version to search (`v`, one readers can see), or null for all */
  version: ReaderVersionRow | null;
}

/** C0 and C1 control characters, and halves of surrogate pairs without their other half. */
const CONTROL =
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const PAGE_NUMBER = /^[1-9][0-9]{0,5}$/;

/**
 * The query string as a browser's form sends it. URLSearchParams reads any bytes: a `%` sequence that
 * is not UTF-8 (`%FF`) becomes U+FFFD, so nothing here throws, whatever the address holds.
 */
export function readAsk(url: string, versions: readonly ReaderVersionRow[]): SearchAsk {
  const at = url.indexOf('?');
  const params = new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
  const q = (params.get('q') ?? '').replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  const pageText = params.get('page') ?? '';
  const slug = params.get('v') ?? '';
  const tooLong = q.length > MAX_QUERY_CHARS;
  return {
    // Cut where no surrogate pair is split, so the form shows it back as it was typed.
    q: tooLong ? q.slice(0, MAX_QUERY_CHARS).replace(/[\ud800-\udbff]$/, '') : q,
    refusal: tooLong
      ? `The search is ${q.length.toLocaleString('en')} characters long; searches are at most ${MAX_QUERY_CHARS}. Shorten it and search again.`
      : null,
    page: PAGE_NUMBER.test(pageText) ? Number(pageText) : 1,
    version: versions.find((v) => v.slug === slug) ?? null,
  };
}

/**
 * Search on the reader site (the specification's site.md §2, §3): the results page, rendered on the server,
 * and the suggestions a script shows as the reader types. Both ask SearchService with a reader's
 * context, so they find what readers can see and nothing else, and both are answered from the
 * service's answers kept under the project's change stamp: the site keeps no answer per query.
 */
export class SiteSearch {
  private readonly suggestLimit: number;

  constructor(
    private readonly site: SiteHandler,
    private readonly deps: SiteSearchDeps,
  ) {
    this.suggestLimit = Math.max(1, Math.floor(SUGGEST_LIMIT * deps.config.rateLimitScale));
  }

  register(): void {
    this.site.on('search', (ctx) => this.resultsPage(ctx));
    this.site.on('search-json', (ctx) => this.suggestions(ctx));
  }

  /** `{site}/search?q=&v=&page=`: the form alone without a query; 400 with the form for one too long. */
  async resultsPage({ site, request }: AddressContext): Promise<SiteAnswer> {
    const ask = readAsk(request.url, site.view.versions);
    let results: ResultsPage | null = null;
    if (ask.refusal === null && ask.q !== '') {
      const found = ask.page <= MAX_PAGE ? await this.search(site, ask, PER_PAGE) : null;
      const total = found?.nbHits ?? 0;
      const pages = Math.min(MAX_PAGE, found?.nbPages ?? 0);
      const pageAddress = (page: number) => this.resultsAddress(site, ask, page);
      results = {
        hits: found === null ? [] : await presentHits(site, found.hits, this.navigationOf(site)),
        total,
        page: ask.page,
        pages,
        previous: ask.page > 1 && pages > 0 ? pageAddress(Math.min(ask.page - 1, pages)) : null,
        next: ask.page < pages ? pageAddress(ask.page + 1) : null,
      };
    }
    const document = SearchDocument({ site, q: ask.q, version: ask.version, refusal: ask.refusal, results });
    return this.site.html(document, ask.refusal === null ? 200 : 400);
  }

  /** `{site}/search/results.json?q=&v=`: `{ hits: [{ url, title, context }] }`, rate limited per address. */
  async suggestions({ site, request }: AddressContext): Promise<SiteAnswer> {
    const wait = await this.overLimit(request);
    if (wait !== null) {
      return json(
        429,
        { hits: [], error: `Too many searches from this address. Try again in ${wait} seconds.` },
        { 'retry-after': String(wait), 'cache-control': 'no-store' },
      );
    }
    const ask = readAsk(request.url, site.view.versions);
    if (ask.refusal !== null) return json(400, { hits: [], error: ask.refusal });
    if (ask.q === '') return json(200, { hits: [] });
    const found = await this.search(site, { ...ask, page: 1 }, SUGGESTIONS);
    const hits = found === null ? [] : await presentHits(site, found.hits, this.navigationOf(site));
    return json(200, { hits: hits.map(({ url, title, context }) => ({ url, title, context })) });
  }

  /** The service's answer for a reader of the site; null when the version went away meanwhile. */
  private async search(site: SiteContext, ask: SearchAsk, hits: number): Promise<SearchResult | null> {
    const context = this.site.readers.context(site.view.project);
    try {
      // The stamp the site read first (site.handler.ts), before anything of the answer: one read.
      const body = await this.deps.search.searchJson(
        context,
        {
          query: ask.q,
          page: ask.page - 1,
          hits,
          ...(ask.version === null ? {} : { version_slug: ask.version.slug }),
        },
        site.stamp,
      );
      return JSON.parse(body) as SearchResult;
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  private navigationOf(site: SiteContext) {
    return (slug: string) => this.site.navigation(site, slug);
  }

  private resultsAddress(site: SiteContext, ask: SearchAsk, page: number): string {
    const params = new URLSearchParams({ q: ask.q });
    if (ask.version !== null) params.set('v', ask.version.slug);
    if (page > 1) params.set('page', String(page));
    return `${href(site, '/search')}?${params.toString()}`;
  }

  /**
   * Seconds to wait when the client address has used its suggestions of the window, else null. A
   * counter store that fails (Redis away) admits the request: suggestions are a convenience, and the
   * service answers repeated queries from memory.
   */
  private async overLimit(request: FastifyRequest): Promise<number | null> {
    const now = this.deps.clock.now();
    try {
      const counted = await this.deps.counters.increment(`site-search:${request.ip}`, SUGGEST_WINDOW_MS, now);
      if (counted.count <= this.suggestLimit) return null;
      return Math.max(1, Math.ceil((counted.resetAt - now) / 1000));
    } catch (error) {
      request.log.warn({ err: error }, 'the site search could not count a request; admitted');
      return null;
    }
  }
}

const json = (
  status: SiteAnswer['status'],
  body: { hits: Array<{ url: string; title: string; context: string }>; error?: string },
  headers?: Record<string, string>,
): SiteAnswer => ({
  status,
  type: 'application/json; charset=utf-8',
  body: JSON.stringify(body),
  ...(headers === undefined ? {} : { headers }),
});
