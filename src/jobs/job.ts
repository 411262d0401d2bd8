/** Where a job reports what it did and what failed (the server's logger). */
export interface JobLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Work that runs beside the requests rather than in one. The server starts every job once it
 * listens, in the order of the list; the composition root closes them in the reverse order, before
 * the worker threads and the database they use. A job the server never started (a test app, the
 * command line) closes all the same.
 */
export interface Job {
  readonly name: string;
  start(log: JobLog): void;
  close(): Promise<void>;
}

/** Work that change events start (renders ahead, link scans), or that ends with a flush: closed, never started. */
export function drained(name: string, close: () => Promise<void>): Job {
  return { name, start: () => undefined, close };
}

export interface PeriodicWork {
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
  /** what a run that succeeded reports; nothing when absent */
  done?: (log: JobLog, result: unknown) => void;
  /** what a failed run reports, beside its error */
  failure: string;
}

/** Work run at start and then every `everyMs`; a failed run is reported and the next one comes. */
export function periodic(work: PeriodicWork): Job {
  let timer: NodeJS.Timeout | undefined;
  return {
    name: work.name,
    start(log) {
      const run = () =>
        work
          .run()
          .then((result) => work.done?.(log, result))
          .catch((error: unknown) => log.warn({ err: error }, work.failure));
      void run();
      // A timer alone keeps no process alive: a server is kept by its listener.
      timer = setInterval(() => void run(), work.everyMs).unref();
    },
    async close() {
      clearInterval(timer);
    },
  };
}
