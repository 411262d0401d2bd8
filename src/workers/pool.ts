import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { MAX_TIMER_MS, ThreadTurns } from './thread-turns.ts';
import type { Task, TaskEnvelope, TaskResult, TaskResults } from './tasks.ts';

export interface WorkerPoolOptions {
  /** threads at most (default: the cores there are, at least 1 and at most 4) */
  threads?: number;
  /** the longest one task may run, from when a thread takes it, before its thread is stopped (ms) */
  taskTimeoutMs: number;
  /**
   * the longest one task may wait for its turn at a thread, all of them being busy, before it is
   * given up (ms; default the task timeout, at least 30 s: a task ahead may be waiting for a new
   * thread to load the tasks, which took more than 10 s on a loaded machine)
   */
  queueTimeoutMs?: number;
  /** the heap one thread may grow to (MiB); a task that needs more stops its thread */
  memoryMb: number;
  /** threads kept alive when idle (default 0: threads start on first use, stop after a minute idle) */
  minThreads?: number;
}

/**
 * Why a task did not finish: out of time, out of memory, or its thread died; or it never had a
 * thread, every one being busy for as long as a task may wait (`busy`: the input is not at fault).
 */
export class TaskFailedError extends Error {
  constructor(
    readonly reason: 'timeout' | 'memory' | 'crashed' | 'busy',
    message: string,
  ) {
    super(message);
    this.name = 'TaskFailedError';
  }
}

/** Whether this is the build in dist/ (`npm run build`) rather than the sources run through tsx. */
const COMPILED = import.meta.url.endsWith('.js');
const TASKS_FILE = new URL(COMPILED ? './tasks.js' : './tasks.ts', import.meta.url).href;

/** At least this long a task may wait for its turn, however short the task timeout. */
const MIN_QUEUE_TIMEOUT_MS = 30_000;

const envelopeOf = (task: Task): TaskEnvelope => ({
  task,
  started: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)),
  submitted: Date.now(),
});

const seconds = (ms: number): string => `${ms / 1000} s`;

/**
 * The event loop answers requests; everything that takes long on large input (parsing, validating
 * and converting OpenAPI documents, rendering large pages) runs here, in worker threads, each task
 * bounded in time and in memory, at a lower scheduling priority than the event loop. A task waits
 * here for its turn while every thread is busy, a bounded time, past which it fails as `busy` (which
 * says nothing of its input); only then does it go to the thread pool. Its time counts from when a
 * thread starts it (the thread writes the moment into a shared cell), not while a thread starts.
 * Threads beyond
 * `minThreads` start on first use and stop after a minute idle. Worker threads load the task module
 * as the main thread runs: compiled, or through tsx.
 */
export class WorkerPool {
  private readonly piscina: Piscina<TaskEnvelope, TaskResult>;
  private readonly timeoutMs: number;
  private readonly queueTimeoutMs: number;
  private readonly memoryMb: number;
  /** the tasks submitted and not yet settled */
  private readonly inFlight = new Set<TaskEnvelope>();
  private readonly turns: ThreadTurns;
  private closed = false;

  constructor(options: WorkerPoolOptions) {
    this.timeoutMs = options.taskTimeoutMs;
    this.queueTimeoutMs = options.queueTimeoutMs ?? Math.max(options.taskTimeoutMs, MIN_QUEUE_TIMEOUT_MS);
    this.memoryMb = options.memoryMb;
    const threads = options.threads ?? Math.max(1, Math.min(4, availableParallelism()));
    this.turns = new ThreadTurns(threads);
    const execArgv =
      COMPILED || process.execArgv.some((arg) => arg === 'tsx' || arg.includes('/tsx/'))
        ? process.execArgv
        : // tsx by its resolved address: a bare name would be looked up from the working directory
          [...process.execArgv, '--import', import.meta.resolve('tsx')];
    this.piscina = new Piscina({
      filename: TASKS_FILE,
      minThreads: options.minThreads ?? 0,
      maxThreads: threads,
      idleTimeout: 60_000,
      niceIncrement: 10,
      execArgv,
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
    });
  }

  run<K extends Task['kind']>(task: Extract<Task, { kind: K }>): Promise<TaskResults[K]> {
    return this.submit(task, this.queueTimeoutMs, this.timeoutMs) as Promise<TaskResults[K]>;
  }

  /**
   * Loads the task module and runs each kind of task once on a small input, so that the first real
   * upload does not pay for module loading and compilation (about two seconds).
   */
  async warm(): Promise<void> {
    // Unbounded: the input is fixed and small, and nothing waits behind it yet.
    await this.submit({ kind: 'warm' }, Infinity, Infinity);
  }

  /** How many tasks a thread is running now (the others submitted are waiting for one). */
  running(): number {
    let count = 0;
    for (const envelope of this.inFlight) if (Atomics.load(envelope.started, 0) !== 0) count++;
    return count;
  }

  /** Tasks still waiting are refused; a running one is stopped. */
  async close(): Promise<void> {
    this.closed = true;
    this.turns.refuseAll();
    await this.piscina.destroy();
  }

  /**
   * Runs a task once it has its turn (waiting at most `queueTimeoutMs`), stopping it `timeoutMs`
   * after its thread started it. The timer looks at the shared cell every `timeoutMs` until the task
   * has started (a new thread may be loading the tasks), then waits for the deadline.
   */
  private async submit(task: Task, queueTimeoutMs: number, timeoutMs: number): Promise<TaskResult> {
    if (this.closed) throw new TaskFailedError('crashed', 'was refused: the worker pool is closed');
    if (!this.turns.tryTake() && !(await this.turns.wait(queueTimeoutMs))) {
      if (this.closed) throw new TaskFailedError('crashed', 'was refused: the worker pool is closed');
      throw new TaskFailedError('busy', `waited ${seconds(queueTimeoutMs)} for a free worker thread`);
    }
    const envelope = envelopeOf(task);
    const abort = new AbortController();
    let expired: TaskFailedError | undefined;
    let timer: NodeJS.Timeout | undefined;
    // An unbounded run has no timer (setTimeout would read Infinity as 1 ms).
    const schedule = (ms: number) => {
      if (!Number.isFinite(ms)) return;
      timer = setTimeout(check, Math.min(Math.max(0, ms), MAX_TIMER_MS));
      timer.unref();
    };
    const check = () => {
      const startedAfter = Atomics.load(envelope.started, 0);
      if (startedAfter === 0) return schedule(timeoutMs);
      const deadline = envelope.submitted + startedAfter - 1 + timeoutMs;
      const now = Date.now();
      if (now < deadline) return schedule(deadline - now);
      expired = new TaskFailedError('timeout', `did not finish within ${seconds(timeoutMs)}`);
      abort.abort();
    };
    schedule(timeoutMs);
    this.inFlight.add(envelope);
    try {
      return await this.piscina.run(envelope, { signal: abort.signal });
    } catch (error) {
      throw expired ?? this.failure(error);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(envelope);
      // The next task goes to the pool once this one has left it: a thread stopped under it is gone
      // by now, and the pool starts a new one for the next.
      this.turns.release();
    }
  }

  private failure(error: unknown): TaskFailedError {
    const code = (error as { code?: unknown; name?: unknown }).code;
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new TaskFailedError('memory', `needed more than ${this.memoryMb} MiB of memory`);
    }
    return new TaskFailedError('crashed', error instanceof Error ? error.message : String(error));
  }
}
