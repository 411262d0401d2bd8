/**
 * A bounded least-recently-used map, weighed in entries and in characters, so that a few huge pages
 * cannot hold the process's memory. A Map keeps insertion order: re-inserting on a hit moves the entry
 * to the young end, and eviction takes from the old end.
 */
export class LruCache<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private weight = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
    private readonly weigh: (value: V) => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    const weight = this.weigh(value) + key.length;
    // Something larger than the whole budget is never kept; it would only evict everything else.
    if (weight > this.maxWeight) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.weight -= previous.weight;
    }
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [oldKey, old] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.weight <= this.maxWeight) break;
      this.entries.delete(oldKey);
      this.weight -= old.weight;
    }
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }
}
