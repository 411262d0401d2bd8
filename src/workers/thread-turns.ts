/** The longest delay setTimeout takes as it is (a longer one would fire at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

interface Waiter {
  grant(): void;
  refuse(): void;
  timer?: NodeJS.Timeout;
}

/**
 * Turns at the worker threads: at most `size` tasks hold one at a time; the others wait, first come
 * first served, each for as long as it may. A task that holds a turn is in the thread pool, which
 * then never queues: it has a thread, or starts one.
 */
export class ThreadTurns {
  private held = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly size: number) {}

  /** Takes a turn when one is free and nobody waits for one. */
  tryTake(): boolean {
    if (this.held >= this.size || this.waiting.length > 0) return false;
    this.held++;
    return true;
  }

  /** Waits for a turn: true once it is the caller's, false when `waitMs` passed first. */
  wait(waitMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(true);
        },
        refuse: () => {
          clearTimeout(waiter.timer);
          resolve(false);
        },
      };
      if (Number.isFinite(waitMs)) {
        waiter.timer = setTimeout(
          () => {
            const at = this.waiting.indexOf(waiter);
            if (at !== -1) this.waiting.splice(at, 1);
            resolve(false);
          },
          Math.min(waitMs, MAX_TIMER_MS),
        );
        waiter.timer.unref();
      }
      this.waiting.push(waiter);
    });
  }

  /** Gives a turn back: to the first task waiting, if any. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.held--;
  }

  /** Every task waiting is refused (its wait answers false at once). */
  refuseAll(): void {
    for (const waiter of this.waiting.splice(0)) waiter.refuse();
  }
}
