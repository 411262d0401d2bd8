import type { Redis } from 'ioredis';
import { lazyModule } from '../shared/lazy-module.ts';
import { windowOf, type CounterStore, type WindowCount } from './counter-store.ts';

// INCR and the first expiry in one script: atomic on the server, so concurrent instances never let
// more requests through than the limit, and a counter never outlives its window by much.
const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/** Loaded by the first Redis store: a process on in-memory counters (every command) never needs it. */
const ioredis = lazyModule<typeof import('ioredis')>('ioredis');

type RedisWithScript = Redis & { quireIncrement(key: string, ttlMs: number): Promise<number> };

export class RedisCounterStore implements CounterStore {
  private readonly redis: RedisWithScript;

  constructor(
    url: string,
    private readonly prefix = 'quire:rl:',
  ) {
    const redis = new (ioredis().Redis)(url, {
      maxRetriesPerRequest: 2,
      enableAutoPipelining: true,
      lazyConnect: false,
    });
    redis.defineCommand('quireIncrement', { numberOfKeys: 1, lua: INCREMENT });
    this.redis = redis as RedisWithScript;
  }

  async increment(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const { index, resetAt } = windowOf(windowMs, now);
    // The TTL is relative to Redis's own clock; one extra second covers skew between instances.
    const count = await this.redis.quireIncrement(this.slot(key, windowMs, index), windowMs + 1000);
    return { count: Number(count), resetAt };
  }

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
