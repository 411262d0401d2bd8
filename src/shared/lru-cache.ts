interface Slot<V> {
  key: string;
  value: V;
  weight: number;
  /** where it sits in the ring */
  position: number;
  /** read since the clock hand last passed: spared once */
  referenced: boolean;
}

/**
 * A bounded cache that keeps what is read, weighed in entries and in a unit of the caller's choosing
 * (characters, bytes), so that a few huge values cannot hold the process's memory. Eviction is CLOCK
 * (second chance), an approximation of least-recently-used: a hit only marks its entry, so a read
 * costs one map lookup and never reorders anything; when room is needed, a hand sweeps the entries in
 * turn, sparing once each one read since it last passed, and evicts the first one not read.
 */
export class LruCache<V> {
  private readonly index = new Map<string, Slot<V>>();
  /** the clock's face: slots in a ring, holes (undefined) where an entry left */
  private readonly ring: Array<Slot<V> | undefined> = [];
  /** positions of the holes in `ring` */
  private readonly holes: number[] = [];
  private hand = 0;
  private weight = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
    private readonly weigh: (value: V) => number,
  ) {}

  get size(): number {
    return this.index.size;
  }

  get(key: string): V | undefined {
    const slot = this.index.get(key);
    if (slot === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    slot.referenced = true;
    return slot.value;
  }

  /** The value under `key` without marking it read or counting a hit. */
  peek(key: string): V | undefined {
    return this.index.get(key)?.value;
  }

  set(key: string, value: V): void {
    const weight = this.weigh(value) + key.length;
    const previous = this.index.get(key);
    // Something larger than the whole budget is never kept; it would only evict everything else.
    if (weight > this.maxWeight || this.maxEntries < 1) {
      if (previous !== undefined) this.remove(previous);
      return;
    }
    let slot: Slot<V>;
    if (previous !== undefined) {
      slot = previous;
      this.weight += weight - slot.weight;
      slot.value = value;
      slot.weight = weight;
      slot.referenced = true;
    } else {
      if (this.index.size >= this.maxEntries) this.evictOne(null);
      const hole = this.holes.pop();
      slot = { key, value, weight, position: hole ?? this.ring.length, referenced: false };
      this.ring[slot.position] = slot;
      this.index.set(key, slot);
      this.weight += weight;
    }
    while (this.weight > this.maxWeight && this.evictOne(slot));
  }

  clear(): void {
    this.index.clear();
    this.ring.length = 0;
    this.holes.length = 0;
    this.hand = 0;
    this.weight = 0;
  }

  /**
   * Moves the hand to the first entry not read since it last passed (never `keep`) and evicts it;
   * false when there is none but `keep`.
   */
  private evictOne(keep: Slot<V> | null): boolean {
    // Two turns at most: the first clears every mark it passes.
    for (let steps = 2 * this.ring.length; steps > 0; steps--) {
      if (this.hand >= this.ring.length) this.hand = 0;
      const slot = this.ring[this.hand++];
      if (slot === undefined || slot === keep) continue;
      if (slot.referenced) {
        slot.referenced = false;
        continue;
      }
      this.remove(slot);
      return true;
    }
    return false;
  }

  private remove(slot: Slot<V>): void {
    this.index.delete(slot.key);
    this.weight -= slot.weight;
    this.ring[slot.position] = undefined;
    this.holes.push(slot.position);
  }
}
