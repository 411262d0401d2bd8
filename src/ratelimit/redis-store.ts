import type { Redis } from 'ioredis';
import { lazyModule } from '../shared/lazy-module.ts';
import { windowOf, type CounterStore, type WindowCount } from './counter-store.ts';

// Adds each key's hits of a batch and sets the first expiry, for every key of the batch in one
// script: atomic on the server, so concurrent instances never let more requests through than the
// limit, and a counter never outlives its window by much. ARGV: each key's hits and TTL, in turn.
const INCREMENT_ALL = `
local counts = {}
for i, key in ipairs(KEYS) do
  local hits = tonumber(ARGV[2 * i - 1])
  local count = redis.call('INCRBY', key, hits)
  if count == hits then redis.call('PEXPIRE', key, ARGV[2 * i]) end
  counts[i] = count
end
return counts`;

/** Loaded by the first Redis store: a process on in-memory counters (every command) never needs it. */
const ioredis = lazyModule<typeof import('ioredis')>('ioredis');

type RedisWithScript = Redis & {
  quireIncrementAll(keyCount: number, ...keysThenArgs: (string | number)[]): Promise<number[]>;
};

/** The hits of one counter in one batch, each waiting for its own count. */
interface Slot {
  ttlMs: number;
  resetAt: number;
  waiters: { resolve: (count: WindowCount) => void; reject: (error: unknown) => void }[];
}

export class RedisCounterStore implements CounterStore {
  private readonly redis: RedisWithScript;
  /** Hits counted in this turn of the event loop, by counter; sent at its end. */
  private batch = new Map<string, Slot>();
  private scheduled = false;

  constructor(
    url: string,
    private readonly prefix = 'quire:rl:',
  ) {
    const redis = new (ioredis().Redis)(url, {
      maxRetriesPerRequest: 2,
      enableAutoPipelining: true,
      lazyConnect: false,
    });
    redis.defineCommand('quireIncrementAll', { lua: INCREMENT_ALL });
    this.redis = redis as RedisWithScript;
  }

  /**
   * Counts the hit with every other hit of this turn of the event loop in one script call, a counter's
   * hits of the turn in one INCRBY: a request's count is the counter's value after the INCRBY less
   * the hits queued after it in the same turn. Each hit still gets a count of its own, in arrival
   * order, from one atomic addition on the shared counter, so no two requests of any instance get
   * the same count and the limit lets exactly as many through as one INCR per request did.
   */
  increment(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const { index, resetAt } = windowOf(windowMs, now);
    const slotKey = this.slot(key, windowMs, index);
    return new Promise((resolve, reject) => {
      let slot = this.batch.get(slotKey);
      if (slot === undefined) {
        // The TTL is relative to Redis's own clock; one extra second covers skew between instances.
        slot = { ttlMs: windowMs + 1000, resetAt, waiters: [] };
        this.batch.set(slotKey, slot);
      }
      slot.waiters.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.send);
      }
    });
  }

  private readonly send = (): void => {
    this.scheduled = false;
    const batch = this.batch;
    this.batch = new Map();
    const keys = [...batch.keys()];
    const slots = [...batch.values()];
    const args = slots.flatMap((slot) => [slot.waiters.length, slot.ttlMs]);
    this.redis.quireIncrementAll(keys.length, ...keys, ...args).then(
      (counts) => {
        slots.forEach((slot, i) => {
          const last = Number(counts[i]);
          const { waiters, resetAt } = slot;
          waiters.forEach((waiter, n) => waiter.resolve({ count: last - waiters.length + 1 + n, resetAt }));
        });
      },
      (error: unknown) => {
        for (const slot of slots) for (const waiter of slot.waiters) waiter.reject(error);
      },
    );
  };

  async peek(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const { index, resetAt } = windowOf(windowMs, now);
    const value = await this.redis.get(this.slot(key, windowMs, index));
    return { count: value === null ? 0 : Number(value), resetAt };
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }

  private slot(key: string, windowMs: number, index: number): string {
    return `${this.prefix}${key}:${windowMs}:${index}`;
  }
}
