import { LruCache } from '../../shared/lru-cache.ts';

interface CachedResponse {
  /** the database change stamp the body was made under */
  stamp: string;
  projectId: number;
  versionId: number;
  /** a string, or bytes when a large content was spliced in (pages.presenter.ts) */
  body: string | Buffer;
  /** its strong entity tag, kept so that a conditional read costs no hashing */
  etag: string;
}

/**
 * Serialised `GET /page/{id}` answers, kept while the database has not changed since they were
 * made. Reads of an unchanged page then cost a map lookup: no query, no link-title lookup, no
 * serialisation. Any write through this process, or a commit by another connection to the same
 * SQLite file, changes the stamp and retires every entry; where no cheap stamp exists (PostgreSQL)
 * nothing is cached. The key's project and version scope are checked on every hit.
 */
export class PageResponseCache {
  private readonly cache: LruCache<CachedResponse>;
  /** Lookups so far, for the metrics: an entry made under an older stamp is a miss. */
  private readonly lookups = { hits: 0, misses: 0 };

  constructor(
    private readonly changeStamp: () => string | null,
    maxEntries = 20_000,
    maxChars = 64 * 1024 * 1024,
  ) {
    this.cache = new LruCache(maxEntries, maxChars, (entry) => entry.body.length);
  }

  /** The stamp to make an answer under, or null when answers cannot be cached now. */
  stamp(): string | null {
    return this.changeStamp();
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

  stats(): { hits: number; misses: number } {
    return { ...this.lookups };
  }

  /** Kept only if nothing changed while the answer was being made. */
  set(key: string, stamp: string, entry: Omit<CachedResponse, 'stamp'>): void {
    if (this.changeStamp() === stamp) this.cache.set(key, { ...entry, stamp });
  }
}
