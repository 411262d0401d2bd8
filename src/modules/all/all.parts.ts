import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { ALL_JSON_HEAD } from './all.presenter.ts';
import { allRepository as repo, EVERY_PAGE, type AllFilter, type PageIdRange } from './all.repository.ts';

/** `count` ranges that cover every id, dividing [first, last] evenly; the outer ends are open. */
export function idRanges(first: number, last: number, count: number): PageIdRange[] {
  const size = (last - first + 1) / count;
  const bounds = Array.from({ length: count - 1 }, (_, i) => first + Math.round(size * (i + 1)));
  return [null, ...bounds].map((from, i) => ({ from, below: bounds[i] ?? null }));
}

export interface PartsJob {
  /** the transaction that exported the snapshot: it writes ranges 0, connections, 2·connections, … */
  trx: Executor;
  /** where the other connections' transactions are opened */
  reader: Kysely<Database>;
  /** the snapshot's id, as allRepository.exportSnapshot answered it */
  snapshot: string;
  filter: AllFilter;
  ranges: readonly PageIdRange[];
  /** how many connections write ranges at once, `trx`'s included */
  connections: number;
}

export interface StreamedListing {
  /** the listing's JSON text, written as its parts come */
  body: Readable;
  /**
   * settles once every connection is in the snapshot, the small dictionaries are read and the first
   * range is written: until then, a failure can still be the request's error answer
   */
  first: Promise<void>;
  /**
   * settles when every connection is done, rejecting with the first failure (the body is then
   * destroyed with it); the exporting transaction must stay open until then
   */
  done: Promise<void>;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** A promise settled from outside; a failure nobody awaits (the writer stopped before it) is no error. */
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * The listing as a stream: ALL_JSON_HEAD, then the page members of the ranges in order, each sent as
 * soon as it and those before it are written, then `tail`. Every connection writes its ranges one
 * after another (range i on connection i mod `connections`), so that the first parts are sent while
 * the database writes the next. The other connections open repeatable-read transactions that take
 * up the exported snapshot before anything else: every part is read in the one snapshot. After a
 * failure, or once the client has gone, no connection starts another range.
 */
export function streamListing(job: PartsJob, tail: Promise<string>): StreamedListing {
  const { ranges, connections } = job;
  const parts = ranges.map(() => deferred<string>());
  // Parts are pushed as they come, whether or not the client has taken the ones before: at most the
  // whole text is held, as an answer written in one piece was.
  const body = new Readable({ read: () => undefined });
  let stopped: Error | null = null;
  const stop = (error: unknown) => {
    stopped ??= asError(error);
  };
  body.once('close', () => stop(new Error('The listing stopped before it was complete.')));
  // A failure is reported by `done` (and `first`); the stream only ends with it, whether or not it
  // was being sent.
  body.on('error', () => undefined);

  /** Connection `n`'s ranges, one after another; `started` once it is in the snapshot. */
  const connection = async (n: number, started: Deferred<void>, db?: Executor): Promise<void> => {
    const indexes = ranges.flatMap((_, i) => (i % connections === n ? [i] : []));
    const write = async (trx: Executor): Promise<void> => {
      started.resolve();
      for (const i of indexes) {
        if (stopped !== null) throw stopped;
        parts[i]?.resolve(await repo.pagesJson(trx, job.filter, ranges[i] ?? EVERY_PAGE));
      }
    };
    try {
      if (db !== undefined) return await write(db);
      await job.reader
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (trx) => {
          await repo.importSnapshot(trx, job.snapshot);
          await write(trx);
        });
    } catch (error) {
      stop(error);
      started.reject(error);
      for (const i of indexes) parts[i]?.reject(error);
      throw error;
    }
  };
  const started = Array.from({ length: connections }, () => deferred<void>());
  const workers = started.map((s, n) => connection(n, s, n === 0 ? job.trx : undefined));

  const written = (async () => {
    body.push(ALL_JSON_HEAD);
    let sent = 0;
    for (const { promise } of parts) {
      const members = await promise;
      if (members === '') continue;
      if (sent++ > 0) body.push(',');
      body.push(members);
    }
    body.push(await tail);
    body.push(null);
  })();
  written.catch((error: unknown) => {
    stop(error);
    body.destroy(asError(error));
  });

  // What can fail early (a connection that cannot be had, the small dictionaries' reads, the first
  // range) still fails the request with an error answer.
  const first = Promise.all([...started.map((s) => s.promise), tail, parts[0]?.promise]).then(
    () => undefined,
  );
  const done = Promise.allSettled([written, tail, ...workers]).then((results) => {
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  });
  return { body, first, done };
}
