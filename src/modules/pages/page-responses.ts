import { LruCache } from '../../shared/lru-cache.ts';

interface CachedResponse {
  /** the project's change stamp, read before the answer's data was */
  stamp: string;
  projectId: number;
  versionId: number;
  /** the serialised answer, as bytes: sent as they are, and weighed off the JavaScript heap */
  body: Buffer;
  /** its strong entity tag, kept so that a conditional read costs no hashing */
  etag: string;
}

/** Where a `GET /page` by slugs led: the page, and its version for the key's scope check. */
interface CachedResolution {
  stamp: string;
  projectId: number;
  pageId: number;
  versionId: number;
}

/** How page answers are cached: the stamps they are kept under, and the memory they may take. */
export interface PageCacheOptions {
  /** the project's change stamp as committed now (ChangeStamps.current), or null: no caching */
  stamp: (projectId: number) => Promise<string | null> | string | null;
  /** bytes for serialised answers and rendered contents together, split evenly (CACHE_MEMORY_MB) */
  memoryBytes?: number;
}

/** The default memory budget of the page caches: 256 MiB. */
export const DEFAULT_PAGE_CACHE_BYTES = 256 * 1024 * 1024;

/** What an entry costs besides its body: key, stamp, tag and the map's own bookkeeping. */
const ENTRY_OVERHEAD = 200;

/**
 * Serialised page answers, kept under the project's change stamp (src/db/change-stamps.ts) read
 * before their data was: an entry is served only while a stamp read after the request arrived is the
 * same, which no change to what the answer holds leaves unchanged, whichever instance committed it.
 * Reads of an unchanged page then cost the stamp read and a map lookup: no page query, no link-title
 * lookup, no serialisation. The key's project and version scope are checked on every hit. Weighed in
 * bytes against a budget (CACHE_MEMORY_MB).
 */
export class PageResponseCache {
  private readonly cache: LruCache<CachedResponse>;
  private readonly resolutions: LruCache<CachedResolution>;
  /** Lookups so far, for the metrics: an entry made under an older stamp is a miss. */
  private readonly lookups = { hits: 0, misses: 0 };

  constructor(
    private readonly changeStamp: (projectId: number) => Promise<string | null> | string | null,
    maxBytes = 128 * 1024 * 1024,
  ) {
    this.cache = new LruCache(
      Math.max(1, Math.floor(maxBytes / 1024)),
      maxBytes,
      (entry) => entry.body.length + ENTRY_OVERHEAD,
    );
    // Resolutions are small (about 260 bytes with their key), and a page may be named by several: an
    // eighth of the budget (about 64,000 of them in the default 128 MiB) holds the resolutions of
    // more pages than the rest holds answers of 5 KB. A sixty-fourth held fewer than the answers of
    // 10,000 pages of 5 KB; with a sixteenth, reads by slugs of 100,000 Zipf-skewed pages ran at
    // 0.46 of reads by id, with an eighth at 0.72 (each miss cost three queries; an answer missing
    // where the resolution is kept now costs the one query of a read by id).
    const resolutionBytes = Math.max(ENTRY_OVERHEAD, Math.floor(maxBytes / 8));
    this.resolutions = new LruCache(
      Math.max(1, Math.floor(resolutionBytes / ENTRY_OVERHEAD)),
      resolutionBytes,
      () => ENTRY_OVERHEAD,
    );
  }

  /**
   * The project's stamp to serve and make answers under, read now (after the request arrived), or
   * null when answers cannot be cached now.
   */
  stamp(projectId: number): Promise<string | null> | string | null {
    return this.changeStamp(projectId);
  }

  get(key: string, stamp: string, projectId: number): CachedResponse | undefined {
    const entry = this.cache.get(key);
    if (entry !== undefined && entry.stamp === stamp && entry.projectId === projectId) {
      this.lookups.hits += 1;
      return entry;
    }
    this.lookups.misses += 1;
    return undefined;
  }

  /** `stamp`: the one read before the answer's data was read, never after. */
  set(
    key: string,
    stamp: string,
    entry: Omit<CachedResponse, 'stamp' | 'body'> & { body: string | Buffer },
  ): void {
    const body = typeof entry.body === 'string' ? Buffer.from(entry.body) : entry.body;
    this.cache.set(key, { ...entry, body, stamp });
  }

  resolution(key: string, stamp: string, projectId: number): CachedResolution | undefined {
    const entry = this.resolutions.get(key);
    return entry !== undefined && entry.stamp === stamp && entry.projectId === projectId ? entry : undefined;
  }

  setResolution(key: string, stamp: string, entry: Omit<CachedResolution, 'stamp'>): void {
    this.resolutions.set(key, { ...entry, stamp });
  }

  stats(): { hits: number; misses: number } {
    return { ...this.lookups };
  }
}
