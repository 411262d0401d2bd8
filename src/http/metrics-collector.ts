import type { CompiledQuery } from 'kysely';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import {
  CellCounter,
  SeriesHistogram,
  sourcedCounter,
  type Cell,
  type HistogramSeries,
  type Labels,
} from './metrics-series.ts';

/** Seconds; cached page reads answer well under a millisecond, exports take seconds. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds; an indexed SQLite read takes tens of microseconds. */
const QUERY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
/** A scrape must answer even when the database does not: the outbox count gives up after this. */
const PENDING_COUNT_TIMEOUT_MS = 2_000;

/** Kysely's root operation node kinds, as the statement label (raw SQL and the rest: `other`). */
const STATEMENTS: Readonly<Record<string, string>> = {
  SelectQueryNode: 'select',
  InsertQueryNode: 'insert',
  UpdateQueryNode: 'update',
  DeleteQueryNode: 'delete',
};

export interface CacheCounts {
  readonly hits: number;
  readonly misses: number;
}

export interface PoolCounts {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
}

/** What is read only when scraped; the composition root wires it (http/ never imports modules). */
export interface MetricSources {
  /** each cache's lookups so far, by the cache's label */
  caches: Readonly<Record<string, () => CacheCounts>>;
  /** the PostgreSQL pool's clients; null on SQLite (no pool) */
  pool: () => PoolCounts | null;
  /** webhook deliveries still to be sent, across every instance (one indexed count) */
  pendingDeliveries: () => Promise<number>;
  /** what the rendered contents stored in the database weigh (one sum over the table) */
  renderStoreBytes: () => Promise<number>;
  /** the background WAL checkpoints so far; null on PostgreSQL */
  checkpoints: () => CheckpointCounts | null;
}

export interface CheckpointCounts {
  readonly runs: number;
  readonly failures: number;
}

export type RefusalLimit = 'operation' | 'auth_failures';

/** What one route's requests are counted under: made once per route, found once per request. */
export class RouteSeries {
  private readonly byMethod = new Map<string, Map<number, Cell>>();

  constructor(
    private readonly operation: string,
    readonly duration: HistogramSeries,
    private readonly requests: CellCounter,
  ) {}

  /** One answered request; its labels are made the first time a method and status are seen. */
  answered(method: string, status: number, seconds: number): void {
    this.duration.observe(seconds);
    let statuses = this.byMethod.get(method);
    if (statuses === undefined) {
      statuses = new Map();
      this.byMethod.set(method, statuses);
    }
    let cell = statuses.get(status);
    if (cell === undefined) {
      cell = this.requests.cell({ operation: this.operation, method, status: String(status) });
      statuses.set(status, cell);
    }
    cell.value += 1;
  }
}

/**
 * One registry per set of dependencies (tests build many apps in one process; prom-client's global
 * registry would mix them and refuse the second app's metric names), with what the hot paths count.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: CellCounter;
  private readonly durations: SeriesHistogram;
  private readonly durationByOperation = new Map<string, HistogramSeries>();
  private readonly refusals: CellCounter;
  private readonly refusalCells = new Map<string, Cell>();
  private readonly queryDurations = new Map<string, HistogramSeries>();
  private readonly queryErrors = new Map<string, Cell>();
  private processMetrics = false;
  private watching = false;

  constructor() {
    const registry = this.registry;
    this.requests = new CellCounter(
      registry,
      'quire_http_requests_total',
      'HTTP requests answered, by operation (or route pattern), method and status.',
      ['operation', 'method', 'status'],
    );
    this.durations = new SeriesHistogram(
      registry,
      'quire_http_request_duration_seconds',
      'Time from routing a request to the last byte of its answer, by operation.',
      ['operation'],
      REQUEST_BUCKETS,
    );
    this.refusals = new CellCounter(
      registry,
      'quire_rate_limit_refusals_total',
      'Requests refused with 429, by operation and by the limit that refused them.',
      ['operation', 'limit'],
    );
    const queries = new SeriesHistogram(
      registry,
      'quire_db_query_duration_seconds',
      'Database statements issued through Kysely, by statement kind.',
      ['statement'],
      QUERY_BUCKETS,
    );
    const errors = new CellCounter(
      registry,
      'quire_db_query_errors_total',
      'Database statements that failed, by statement kind.',
      ['statement'],
    );
    for (const statement of [...Object.values(STATEMENTS), 'other']) {
      this.queryDurations.set(statement, queries.seriesFor({ statement }));
      this.queryErrors.set(statement, errors.cell({ statement }));
    }
  }

  /** The series of a route; routes of one operation share its duration histogram. */
  route(operation: string): RouteSeries {
    let duration = this.durationByOperation.get(operation);
    if (duration === undefined) {
      duration = this.durations.seriesFor({ operation });
      this.durationByOperation.set(operation, duration);
    }
    return new RouteSeries(operation, duration, this.requests);
  }

  /** A 429: the operation's own limit, or too many failed keys from one address. */
  refused(operation: string, limit: RefusalLimit): void {
    const key = `${limit} ${operation}`;
    let cell = this.refusalCells.get(key);
    if (cell === undefined) {
      cell = this.refusals.cell({ operation, limit });
      this.refusalCells.set(key, cell);
    }
    cell.value += 1;
  }

  /** Every statement's duration, and its failure (the database handle's `onQuery`). */
  readonly onQuery = (query: CompiledQuery, durationMs: number, failed: boolean): void => {
    const statement = STATEMENTS[query.query.kind] ?? 'other';
    this.queryDurations.get(statement)?.observe(durationMs / 1000);
    if (failed) {
      const cell = this.queryErrors.get(statement);
      if (cell !== undefined) cell.value += 1;
    }
  };

  /** Registers what is read at scrape time; once (later calls are ignored). */
  watch(sources: MetricSources): void {
    if (this.watching) return;
    this.watching = true;
    const registry = this.registry;
    const caches = Object.entries(sources.caches);
    const counts = (pick: (c: CacheCounts) => number) =>
      caches.map(([cache, read]): readonly [Labels, number] => [{ cache }, pick(read())]);
    sourcedCounter(
      registry,
      'quire_cache_hits_total',
      'Cache lookups answered from the cache.',
      ['cache'],
      () => counts((c) => c.hits),
    );
    sourcedCounter(
      registry,
      'quire_cache_misses_total',
      'Cache lookups that found nothing current.',
      ['cache'],
      () => counts((c) => c.misses),
    );

    if (sources.pool() !== null) {
      const gauge = (name: string, help: string, pick: (p: PoolCounts) => number) =>
        new Gauge({
          name,
          help,
          registers: [registry],
          collect() {
            const pool = sources.pool();
            if (pool !== null) this.set(pick(pool));
          },
        });
      gauge('quire_db_pool_connections', 'Connections the PostgreSQL pool holds open.', (p) => p.total);
      gauge('quire_db_pool_idle_connections', 'Open pool connections not in use.', (p) => p.idle);
      gauge('quire_db_pool_waiting_requests', 'Queries waiting for a pool connection.', (p) => p.waiting);
    }

    const checkpoints = sources.checkpoints;
    if (checkpoints() !== null) {
      const counter = (name: string, help: string, pick: (c: CheckpointCounts) => number) =>
        sourcedCounter(registry, name, help, [], () => {
          const counts = checkpoints();
          return counts === null ? [] : [[{}, pick(counts)] as const];
        });
      counter(
        'quire_sqlite_checkpoints_total',
        'Checkpoints of the background thread that copied WAL frames into the SQLite file.',
        (c) => c.runs,
      );
      counter(
        'quire_sqlite_checkpoint_failures_total',
        'Background checkpoints that failed, and checkpoint threads that stopped (the writer then checkpoints).',
        (c) => c.failures,
      );
    }

    new Gauge({
      name: 'quire_webhook_deliveries_pending',
      help: 'Webhook deliveries not yet sent or given up (every instance shares the outbox); NaN when the count failed.',
      registers: [registry],
      async collect() {
        this.set(await withTimeout(sources.pendingDeliveries(), PENDING_COUNT_TIMEOUT_MS).catch(() => NaN));
      },
    });
    new Gauge({
      name: 'quire_render_store_bytes',
      help: 'Bytes of rendered contents stored in the database (held under RENDER_STORE_MB); NaN when the sum failed.',
      registers: [registry],
      async collect() {
        this.set(await withTimeout(sources.renderStoreBytes(), PENDING_COUNT_TIMEOUT_MS).catch(() => NaN));
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * The exposition text. Process metrics start with the first scrape: prom-client's garbage
   * collection observer and event-loop monitor cannot be stopped, so an app that is never scraped
   * (most test apps) must not start them.
   */
  async text(): Promise<string> {
    if (!this.processMetrics) {
      this.processMetrics = true;
      collectDefaultMetrics({ register: this.registry });
    }
    return this.registry.metrics();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
