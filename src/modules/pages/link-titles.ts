import type { Executor } from '../../db/executor.ts';
import { LruCache } from '../../shared/lru-cache.ts';
import type { PageQueries } from './pages.reads.repository.ts';

/** A target's title as read under a project's change stamp; null: no live page of that name then. */
interface KnownTitle {
  stamp: string;
  title: string | null;
}

/**
 * What an entry takes besides its key and title: measured at about 320 bytes for 100,000 entries of
 * 40-character keys and 25-character titles, all of it counted against the budget.
 */
const ENTRY_OVERHEAD = 256;

/**
 * The titles of the pages [auto$] links name (`section/page`, within the linking page's version).
 * Read with a request's change stamp (src/db/change-stamps.ts), a title is remembered under it, a
 * missing target too, and served again only while the project's stamp is the same: every write to a
 * page or a section of the project moves it, on whichever instance it was made. A read that misses
 * the answer caches (another format, a page not kept in memory) then needs no query for targets other
 * pages named before it. Without a stamp (inside a transaction, or none readable) every title is
 * read.
 */
export class LinkTitles {
  private readonly known: LruCache<KnownTitle>;
  private readonly counts = { hits: 0, misses: 0 };

  /** `maxBytes`: what the remembered titles may take, keys and bookkeeping included. */
  constructor(
    private readonly queries: PageQueries,
    maxBytes: number,
  ) {
    this.known = new LruCache(
      Math.max(1, Math.floor(maxBytes / ENTRY_OVERHEAD)),
      maxBytes,
      (entry) => ENTRY_OVERHEAD + (entry.title?.length ?? 0),
    );
  }

  /** Lookups of one target each under a stamp: a hit needed no query. */
  stats(): { hits: number; misses: number } {
    return { ...this.counts };
  }

  /**
   * Titles by target (`section/page`) of the live pages `targets` name in the version; targets
   * naming none are absent. `stamp`: the project's, read before anything of the answer was.
   */
  async of(
    trx: Executor | undefined,
    versionId: number,
    targets: readonly string[],
    stamp: string | null,
  ): Promise<Map<string, string>> {
    const titles = new Map<string, string>();
    const missing: string[] = [];
    for (const target of new Set(targets)) {
      const known = stamp === null ? undefined : this.known.get(`${versionId}/${target}`);
      if (known !== undefined && known.stamp === stamp) {
        this.counts.hits += 1;
        if (known.title !== null) titles.set(target, known.title);
      } else {
        if (stamp !== null) this.counts.misses += 1;
        missing.push(target);
      }
    }
    if (missing.length === 0) return titles;
    const found = new Map<string, string>();
    for (const row of await this.queries.linkTitles(trx, versionId, missing)) {
      found.set(`${row.documentation_slug}/${row.slug}`, row.title);
    }
    for (const target of missing) {
      const title = found.get(target);
      if (title !== undefined) titles.set(target, title);
      if (stamp !== null) this.known.set(`${versionId}/${target}`, { stamp, title: title ?? null });
    }
    return titles;
  }
}
