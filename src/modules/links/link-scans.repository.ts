import type { Executor } from '../../db/executor.ts';
import type { ContentScan } from '../../content/link-scan.ts';

/** Stored scans by key, and the keys among them stored long enough ago to be stored again. */
export interface FoundScans {
  scans: Map<string, ContentScan>;
  stale: string[];
}

/** A scan and the key it is kept under (see links.scanner.ts scanKeys). */
export interface StoredScan {
  key: string;
  scan: ContentScan;
}

/** Keys one statement names: well under every dialect's limit on bound parameters. */
const KEYS_PER_QUERY = 500;
/** Rows one insert writes: a few hundred kilobytes of JSON. */
const ROWS_PER_INSERT = 500;
/** Rows one delete of the purge removes: each its own statement, so none holds the write lock long. */
const ROWS_PER_DELETE = 1000;

function* batches<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}

/** A stored scan as JSON; undefined when it cannot be read, which only means it is made again. */
function parsed(text: string): ContentScan | undefined {
  try {
    const scan = JSON.parse(text) as Partial<ContentScan> | null;
    return Array.isArray(scan?.links) && Array.isArray(scan.anchors) ? (scan as ContentScan) : undefined;
  } catch {
    return undefined;
  }
}

/** Link scans kept between reports and instances; derived data, keyed by what it derives from. */
export const linkScansRepository = {
  /** The stored scans of the keys, and which of them were stored before `staleBefore`. */
  async find(db: Executor, keys: readonly string[], staleBefore: string): Promise<FoundScans> {
    const found: FoundScans = { scans: new Map(), stale: [] };
    for (const batch of batches(keys, KEYS_PER_QUERY)) {
      const rows = await db
        .selectFrom('link_scans')
        .select(['key', 'scan', 'created'])
        .where('key', 'in', batch)
        .execute();
      for (const row of rows) {
        const scan = parsed(row.scan);
        if (scan === undefined) continue;
        found.scans.set(row.key, scan);
        if (row.created < staleBefore) found.stale.push(row.key);
      }
    }
    return found;
  },

  /** Which of the keys have a scan stored, without reading the scans. */
  async stored(db: Executor, keys: readonly string[]): Promise<Set<string>> {
    const stored = new Set<string>();
    for (const batch of batches(keys, KEYS_PER_QUERY)) {
      const rows = await db.selectFrom('link_scans').select('key').where('key', 'in', batch).execute();
      for (const row of rows) stored.add(row.key);
    }
    return stored;
  },

  /**
   * Adds scans; a key stored already keeps its scan (another report or instance stored the same
   * scan: the key is a digest of everything the scan depends on) and takes the new date, so a scan
   * still in use is never purged.
   */
  async save(db: Executor, entries: readonly StoredScan[], created: string): Promise<void> {
    // The same text on two pages is one scan: one row.
    const unique = [...new Map(entries.map((entry) => [entry.key, entry])).values()];
    for (const batch of batches(unique, ROWS_PER_INSERT)) {
      await db
        .insertInto('link_scans')
        .values(batch.map(({ key, scan }) => ({ key, scan: JSON.stringify(scan), created })))
        .onConflict((oc) => oc.column('key').doUpdateSet({ created: (eb) => eb.ref('excluded.created') }))
        .execute();
    }
  },

  /** Removes the scans stored before `before`; the number removed. */
  async purge(db: Executor, before: string): Promise<number> {
    let purged = 0;
    for (;;) {
      const result = await db
        .deleteFrom('link_scans')
        .where('key', 'in', (eb) =>
          eb.selectFrom('link_scans').select('key').where('created', '<', before).limit(ROWS_PER_DELETE),
        )
        .executeTakeFirst();
      const count = Number(result.numDeletedRows);
      purged += count;
      if (count < ROWS_PER_DELETE) return purged;
    }
  },
};
