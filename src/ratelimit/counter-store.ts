/** Fixed-window counters, shared by every instance when the store is Redis. */
export interface WindowCount {
  /** requests counted in the window, this one included */
  count: number;
  /** epoch ms at which the window ends */
  resetAt: number;
}

export interface CounterStore {
  /**
   * Atomically counts one hit of `key` in the window of `windowMs` that contains `now`. A store in
   * this process answers at once, without a promise: the request it admits goes on in the same turn.
   */
  increment(key: string, windowMs: number, now: number): WindowCount | Promise<WindowCount>;
  /** The count of the current window, without counting. */
  peek(key: string, windowMs: number, now: number): Promise<WindowCount>;
  close(): Promise<void>;
}

/** Windows are aligned on the epoch, so every instance agrees on where a window starts and ends. */
export function windowOf(windowMs: number, now: number): { index: number; resetAt: number } {
  const index = Math.floor(now / windowMs);
  return { index, resetAt: (index + 1) * windowMs };
}
