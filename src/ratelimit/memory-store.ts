import { windowOf, type CounterStore, type WindowCount } from './counter-store.ts';

/** The in-process store: one Map, swept of ended windows as it grows. */
export class MemoryCounterStore implements CounterStore {
  private readonly counts = new Map<string, { count: number; resetAt: number }>();
  private nextSweepAt = 10_000;

  increment(key: string, windowMs: number, now: number): WindowCount {
    const { index, resetAt } = windowOf(windowMs, now);
    const slot = `${key}:${windowMs}:${index}`;
    let entry = this.counts.get(slot);
    if (entry === undefined) {
      entry = { count: 0, resetAt };
      this.counts.set(slot, entry);
      if (this.counts.size >= this.nextSweepAt) this.sweep(now);
    }
    entry.count += 1;
    return { count: entry.count, resetAt };
  }

  peek(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const { index, resetAt } = windowOf(windowMs, now);
    return Promise.resolve({ count: this.counts.get(`${key}:${windowMs}:${index}`)?.count ?? 0, resetAt });
  }

  close(): Promise<void> {
    this.counts.clear();
    return Promise.resolve();
  }

  private sweep(now: number): void {
    for (const [slot, entry] of this.counts) if (entry.resetAt <= now) this.counts.delete(slot);
    this.nextSweepAt = Math.max(10_000, this.counts.size * 2);
  }
}
