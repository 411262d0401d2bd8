import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Dialect } from 'kysely';
import { TURN_MS } from '../shared/turns.ts';
import { wrappingDialect } from './timed-dialect.ts';

/** Set while an import's work runs: its statements may wait for the next turn (below). */
const importing = new AsyncLocalStorage<true>();

/**
 * Runs `work` (an import's writing) with its statements taking turns with the event loop, as
 * turnTakingDialect says; every other statement runs as it comes.
 */
export function inWriterTurns<T>(work: () => Promise<T>): Promise<T> {
  return importing.run(true, work);
}

/**
 * SQLite's writer runs every statement on the event loop, and a use case's statements follow one
 * another without a turn between them: the writes of one page of 4 MB (its row, its history, its
 * search entries) held every request for several hundred milliseconds. Here, once the writer's
 * statements have run for TURN_MS in one turn of the event loop, the next one of an import
 * (inWriterTurns) waits for the next turn, so that a turn holds at most TURN_MS and one statement
 * (decision 0020). Its transaction stays open meanwhile, as across any other await: other writes of
 * this server wait for the writer, reads go on with the read connection.
 *
 * Only an import's statements wait so. A transaction left open across turns lets a second
 * connection to the file in the same process (two apps over one file, as the tests run them) commit
 * between its read and its write, which SQLite refuses at the write (SQLITE_BUSY_SNAPSHOT); the
 * short transactions of requests keep running in one piece.
 */
export function turnTakingDialect(dialect: Dialect): Dialect {
  const turns = new StatementTurns();
  return wrappingDialect(dialect, (connection) => ({
    executeQuery(query) {
      if (importing.getStore() === undefined) return connection.executeQuery(query);
      const wait = turns.before();
      return wait === null ? connection.executeQuery(query) : wait.then(() => connection.executeQuery(query));
    },
    streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
  }));
}

/** Where the statements of the current turn of the event loop began. */
class StatementTurns {
  private began: number | null = null;
  private readonly ended = (): void => {
    this.began = null;
  };

  /** Null when the statement may run now; otherwise a promise of the next turn. */
  before(): Promise<void> | null {
    if (this.began === null) {
      this.start();
      return null;
    }
    if (performance.now() - this.began < TURN_MS) return null;
    // The end of this turn was queued first: it runs before the wait is over.
    return nextTurn().then(() => this.start());
  }

  private start(): void {
    this.began = performance.now();
    setImmediate(this.ended);
  }
}
