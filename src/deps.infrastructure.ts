import type { Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/dialect.ts';
import type { Clock } from './clock.ts';
import type { Metrics } from './http/metrics-collector.ts';
import type { Resolver } from './modules/webhooks/webhook-address.ts';
import type { KeySource } from './modules/webhooks/webhook-secrets.ts';
import type { CounterStore } from './ratelimit/counter-store.ts';
import { MemoryCounterStore } from './ratelimit/memory-store.ts';
import { RedisCounterStore } from './ratelimit/redis-store.ts';
import { WorkerPool } from './workers/pool.ts';

/**
 * What the composition root (deps.ts) stands on, made from the configuration unless an override
 * gives it: the database, the rate limit's counters, the worker threads, webhook secrets' key.
 */

export interface DepsOverrides {
  clock?: Clock;
  /** PostgreSQL schema to work in (tests isolate themselves with one each) */
  schema?: string;
  /** Redis key prefix (tests isolate themselves with one each) */
  redisPrefix?: string;
  database?: DatabaseHandle;
  counters?: CounterStore;
  /** a pool shared by several apps (tests); it is then not closed with them */
  workers?: WorkerPool;
  /** worker threads kept alive when idle (the server keeps one, warm) */
  workerMinThreads?: number;
  /** how long a task may wait for a worker thread (tests of a busy pool; default in WorkerPool) */
  workerQueueTimeoutMs?: number;
  /** how webhook hosts are resolved, at registration and at each delivery (tests prove rebinding) */
  webhookResolver?: Resolver;
  /** where the dispatcher's background failures go (the server logs them) */
  onWebhookError?: (error: unknown) => void;
  /** where the SQLite checkpoint thread's failures go (the server logs them) */
  onCheckpointError?: (error: Error) => void;
}

/** The database: the configured one, counted by the metrics when they are on. */
export function openDepsDatabase(
  config: Config,
  overrides: DepsOverrides,
  metrics: Metrics | null,
): DatabaseHandle {
  return (
    overrides.database ??
    openDatabase(config.databaseUrl, {
      ...(overrides.schema !== undefined ? { schema: overrides.schema } : {}),
      statementTimeoutMs: config.databaseStatementTimeoutMs,
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      sqliteMmapBytes: config.sqliteMmapMb * 1024 * 1024,
      ...(metrics ? { onQuery: metrics.onQuery } : {}),
    })
  );
}

/** Rate-limit counters: in Redis when it is configured, else in this process. */
export function counterStore(config: Config, overrides: DepsOverrides): CounterStore {
  return (
    overrides.counters ??
    (config.redisUrl !== null
      ? new RedisCounterStore(config.redisUrl, overrides.redisPrefix ?? config.redisKeyPrefix)
      : new MemoryCounterStore())
  );
}

/** The worker threads, unless several apps share a pool (tests). */
export function workerPool(config: Config, overrides: DepsOverrides): WorkerPool {
  return (
    overrides.workers ??
    new WorkerPool({
      ...(config.workerThreads !== null ? { threads: config.workerThreads } : {}),
      taskTimeoutMs: config.workerTaskTimeoutMs,
      memoryMb: config.workerMemoryMb,
      minThreads: overrides.workerMinThreads ?? 0,
      ...(overrides.workerQueueTimeoutMs !== undefined
        ? { queueTimeoutMs: overrides.workerQueueTimeoutMs }
        : {}),
    })
  );
}

/** Where webhook secrets' key comes from (docs/decisions/0014-webhooks.md). */
export function webhookKeySource(config: Config, database: DatabaseHandle): KeySource {
  if (config.webhookSecretKey !== null) return { kind: 'configured', key: config.webhookSecretKey };
  if (database.sqlite === null) return { kind: 'none' };
  if (database.sqlite.memory) return { kind: 'process' };
  return { kind: 'file', path: `${database.sqlite.name}.webhook-key` };
}
