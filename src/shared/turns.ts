import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';

/**
 * How long a long piece of work (an import, a release of its changes, the work after a large commit)
 * may hold the event loop before it gives a turn to everything else: well under the 100 ms a request
 * may wait (decision 0020), with room for one unit of work that overruns it.
 */
export const TURN_MS = 20;

/** Gives the event loop a turn once `ms` of work has gone by since the last one. */
export class TurnBudget {
  private since = performance.now();

  constructor(private readonly ms = TURN_MS) {}

  /** Whether the budget of this turn is spent. */
  spent(): boolean {
    return performance.now() - this.since >= this.ms;
  }

  /** A turn for the others when this one's budget is spent; otherwise at once. */
  async pass(): Promise<void> {
    if (!this.spent()) return;
    await setImmediate();
    this.since = performance.now();
  }
}
