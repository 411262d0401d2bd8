import { performance } from 'node:perf_hooks';
import type { Transaction } from 'kysely';
import { TURN_MS } from '../shared/turns.ts';
import type { Database } from './schema.ts';

/**
 * Work that must happen only once a transaction has committed: renders ahead, link scans queued,
 * nudges to the webhook sender, cache entries forgotten (decision 0024). It waits here, by
 * transaction, until the transaction's owner has committed (inTransaction, a group of
 * TransactionGroups, an Idempotency-Key's run) and says so; a rollback drops it, and a rollback to a
 * savepoint drops what was queued since the savepoint.
 */
const waiting = new WeakMap<Transaction<Database>, Array<() => void>>();

export function afterCommit(trx: Transaction<Database>, work: () => void): void {
  const queued = waiting.get(trx);
  if (queued === undefined) waiting.set(trx, [work]);
  else queued.push(work);
}

/** Where the queue of `trx` stands: what a rollback to a savepoint taken now goes back to. */
export function afterCommitMark(trx: Transaction<Database>): number {
  return waiting.get(trx)?.length ?? 0;
}

/** Drops the work queued in `trx` since `mark` (0: all of it): what it followed was undone. */
export function dropAfterCommit(trx: Transaction<Database>, mark = 0): void {
  const queued = waiting.get(trx);
  if (queued === undefined) return;
  if (mark === 0) waiting.delete(trx);
  else queued.length = Math.min(queued.length, mark);
}

/**
 * `trx` has committed: its work runs now, in the order queued. Each piece runs on its own; one that
 * throws is given up, and neither stops the others nor turns the committed change into an error.
 * What a request queues runs before this returns; the work of a very large transaction (an import's
 * release, thousands of changes) goes on in the turns that follow, TURN_MS at a time, in order, so
 * that the event loop answers meanwhile.
 */
export function committed(trx: Transaction<Database>): void {
  const queued = waiting.get(trx);
  if (queued === undefined) return;
  waiting.delete(trx);
  runFrom(queued, 0);
}

function runFrom(queued: ReadonlyArray<() => void>, start: number): void {
  const began = performance.now();
  for (let i = start; i < queued.length; i++) {
    try {
      queued[i]!();
    } catch {
      // Best effort by nature (a cache, a queue, a nudge): what it would have done is done later
      // by a first read, the next poll, or the entry's expiry.
    }
    if (i + 1 < queued.length && performance.now() - began >= TURN_MS) {
      setImmediate(() => runFrom(queued, i + 1));
      return;
    }
  }
}
