import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { Task, TaskResult, TaskResults } from './tasks.ts';

export interface WorkerPoolOptions {
  /** threads at most (default: the cores there are, at least 1 and at most 4) */
  threads?: number;
  /** the longest one task may run before its thread is stopped (ms) */
  taskTimeoutMs: number;
  /** the heap one thread may grow to (MiB); a task that needs more stops its thread */
  memoryMb: number;
  /** threads kept alive when idle (default 0: threads start on first use, stop after a minute idle) */
  minThreads?: number;
}

/** Why a task did not finish: out of time, out of memory, or its thread died. */
export class TaskFailedError extends Error {
  constructor(
    readonly reason: 'timeout' | 'memory' | 'crashed',
    message: string,
  ) {
    super(message);
    this.name = 'TaskFailedError';
  }
}

/** Whether this is the build in dist/ (`npm run build`) rather than the sources run through tsx. */
const COMPILED = import.meta.url.endsWith('.js');
const TASKS_FILE = new URL(COMPILED ? './tasks.js' : './tasks.ts', import.meta.url).href;

/**
 * The event loop answers requests; everything that takes long on large input (parsing, validating
 * and converting OpenAPI documents, rendering large pages) runs here, in worker threads, each task
 * bounded in time and in memory, at a lower scheduling priority than the event loop. Threads beyond
 * `minThreads` start on first use and stop after a minute idle. Worker threads load the task module
 * as the main thread runs: compiled, or through tsx.
 */
export class WorkerPool {
  private readonly piscina: Piscina<Task, TaskResult>;
  private readonly timeoutMs: number;
  private readonly memoryMb: number;

  constructor(options: WorkerPoolOptions) {
    this.timeoutMs = options.taskTimeoutMs;
    this.memoryMb = options.memoryMb;
    const execArgv =
      COMPILED || process.execArgv.some((arg) => arg === 'tsx' || arg.includes('/tsx/'))
        ? process.execArgv
        : // tsx by its resolved address: a bare name would be looked up from the working directory
          [...process.execArgv, '--import', import.meta.resolve('tsx')];
    this.piscina = new Piscina({
      filename: TASKS_FILE,
      minThreads: options.minThreads ?? 0,
      maxThreads: options.threads ?? Math.max(1, Math.min(4, availableParallelism())),
      idleTimeout: 60_000,
      niceIncrement: 10,
      execArgv,
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
    });
  }

  async run<K extends Task['kind']>(task: Extract<Task, { kind: K }>): Promise<TaskResults[K]> {
    try {
      return (await this.piscina.run(task, {
        signal: AbortSignal.timeout(this.timeoutMs),
      })) as TaskResults[K];
    } catch (error) {
      throw this.failure(error);
    }
  }

  /**
   * Loads the task module and runs each kind of task once on a small input, so that the first real
   * upload does not pay for module loading and compilation (about two seconds).
   */
  async warm(): Promise<void> {
    await this.run({ kind: 'warm' });
  }

  /** Tasks still queued are refused; a running one is stopped. */
  async close(): Promise<void> {
    await this.piscina.destroy();
  }

  private failure(error: unknown): TaskFailedError {
    const code = (error as { code?: unknown; name?: unknown }).code;
    const name = (error as { name?: unknown }).name;
    if (name === 'AbortError' || name === 'TimeoutError') {
      return new TaskFailedError('timeout', `did not finish within ${this.timeoutMs / 1000} s`);
    }
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new TaskFailedError('memory', `needed more than ${this.memoryMb} MiB of memory`);
    }
    return new TaskFailedError('crashed', error instanceof Error ? error.message : String(error));
  }
}
