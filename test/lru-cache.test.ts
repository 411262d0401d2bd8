import { describe, expect, it } from 'vitest';
import { LruCache } from '../src/shared/lru-cache.ts';

/** Values weigh their length; keys are one character, so an entry weighs its value's length + 1. */
const cache = (maxEntries: number, maxWeight = 1_000_000) =>
  new LruCache<string>(maxEntries, maxWeight, (value) => value.length);

const present = (lru: LruCache<string>, keys: string[]) => {
  const hits = lru.hits;
  const found = keys.filter((key) => lru.get(key) !== undefined);
  // Looking is a read: the counts move, which the tests below never rely on afterwards.
  expect(lru.hits - hits).toBe(found.length);
  return found;
};

describe('LruCache', () => {
  it('evicts an entry not read since the last sweep before one that was read', () => {
    const lru = cache(3);
    lru.set('a', 'x');
    lru.set('b', 'x');
    lru.set('c', 'x');
    expect(lru.get('a')).toBe('x');
    lru.set('d', 'x');
    expect(lru.size).toBe(3);
    expect(present(lru, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
  });

  it('keeps entries read between inserts through a long stream of entries read once', () => {
    const lru = cache(10);
    const hot = ['h', 'i', 'j', 'k'];
    for (const key of hot) lru.set(key, 'hot');
    for (let i = 0; i < 1_000; i++) {
      lru.set(String.fromCharCode(0x100 + i), 'cold');
      for (const key of hot) lru.get(key);
      expect(lru.size).toBeLessThanOrEqual(10);
    }
    expect(present(lru, hot)).toEqual(hot);
    expect(lru.size).toBe(10);
  });

  it('stays within its weight, evicting as many entries as the new one needs', () => {
    const lru = cache(100, 12);
    lru.set('a', 'xxx'); // 4
    lru.set('b', 'xxx'); // 8
    lru.set('c', 'xxx'); // 12
    lru.get('c');
    lru.set('d', 'xxxxxxx'); // 8: a and b must go, c was read
    expect(present(lru, ['a', 'b', 'c', 'd'])).toEqual(['c', 'd']);
    // Heavier than the whole budget: never kept, and nothing else is evicted for it.
    lru.set('e', 'x'.repeat(12));
    expect(present(lru, ['c', 'd', 'e'])).toEqual(['c', 'd']);
  });

  it('never evicts the entry being stored to make room for it', () => {
    const lru = cache(100, 10);
    lru.set('a', 'xxxx');
    lru.set('b', 'xxxxxxxx'); // 9: only a can go
    expect(present(lru, ['a', 'b'])).toEqual(['b']);
  });

  it('replaces a value in place, weighing it again', () => {
    const lru = cache(2, 10);
    lru.set('a', 'xxxx'); // 5
    lru.set('a', 'xxxxx'); // 6, not 11
    lru.set('b', 'xxx'); // 10
    expect(lru.size).toBe(2);
    expect(lru.get('a')).toBe('xxxxx');
    expect(lru.get('b')).toBe('xxx');
    // A replacement heavier than the budget drops the key rather than keep a stale value.
    lru.set('a', 'x'.repeat(20));
    expect(lru.get('a')).toBeUndefined();
    expect(lru.get('b')).toBe('xxx');
  });

  it('reuses the room of evicted entries and counts hits and misses', () => {
    const lru = cache(4);
    for (let round = 0; round < 50; round++) {
      for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) lru.set(key, `${key}${round}`);
    }
    expect(lru.size).toBe(4);
    const before = { hits: lru.hits, misses: lru.misses };
    const found = ['a', 'b', 'c', 'd', 'e', 'f'].filter((key) => lru.get(key) !== undefined);
    expect(found).toHaveLength(4);
    expect(lru.hits - before.hits).toBe(4);
    expect(lru.misses - before.misses).toBe(2);
    for (const key of found) expect(lru.get(key)).toBe(`${key}49`);
    lru.clear();
    expect(lru.size).toBe(0);
    expect(lru.get('a')).toBeUndefined();
    lru.set('a', 'again');
    expect(lru.get('a')).toBe('again');
  });
});
