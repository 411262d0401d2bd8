import {
  LogController,
  type FastifyBaseLogger,
  type FastifyLogFn,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type Level = (typeof LEVELS)[number];

const LEVEL_VALUES: Readonly<Record<string, number>> = {
  fatal: 60,
  error: 50,
  warn: 40,
  info: 30,
  debug: 20,
  trace: 10,
  silent: Infinity,
};

/** Whether a logger at `current` writes a line at `level`. */
const writes = (current: string, level: Level): boolean =>
  LEVEL_VALUES[level]! >= (LEVEL_VALUES[current] ?? 0);

/**
 * One line per request, written when the answer is finished: method, URL, status, time and request
 * id, in place of Fastify's two (`incoming request`, `request completed`). Written through the root
 * logger with the id as a field, so that no child logger is made for it.
 */
export class RequestSummaryLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const log = request.server.log;
    const level = error ? 'error' : 'info';
    if (!writes(log.level, level)) return;
    const line = {
      reqId: request.id,
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) log.error({ ...line, err: error }, 'request errored');
    else log.info(line, 'request completed');
  }
}

/**
 * `request.log`: the child logger that carries the request id is made the first time something is
 * written through it, not for every request (most write nothing).
 */
class LazyChildLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }
}

for (const level of LEVELS) {
  const write = function (this: LazyChildLogger, ...args: Parameters<FastifyLogFn>): void {
    if (writes(this.level, level)) this.logger()[level](...args);
  };
  Object.defineProperty(LazyChildLogger.prototype, level, { value: write });
}
Object.defineProperty(LazyChildLogger.prototype, 'silent', { value: () => undefined });

/** Fastify's `childLoggerFactory`. */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}

/**
 * Where the log goes (standard output): the lines of one turn of the event loop in one write, not a
 * write per line, since a busy server finishes dozens of requests per turn. Lines still pending when
 * the process exits are written then.
 */
export class BatchedLogStream {
  private pending = '';
  private scheduled = false;
  private readonly flushNow = () => this.flush();

  constructor(
    private readonly out: { write(text: string): unknown } = process.stdout,
    private readonly maxPending = 64 * 1024,
  ) {
    process.once('exit', this.flushNow);
  }

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= this.maxPending) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushNow);
    }
  }

  flush(done?: (error?: Error) => void): void {
    this.scheduled = false;
    if (this.pending !== '') {
      const text = this.pending;
      this.pending = '';
      this.out.write(text);
    }
    done?.();
  }
}
