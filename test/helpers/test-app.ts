import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, expect } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { upgradeDatabase } from '../../src/upgrade.ts';
import { createDeps, type Deps, type DepsOverrides } from '../../src/deps.ts';
import { WorkerPool } from '../../src/workers/pool.ts';
import { checkAnswers } from './answer-check.ts';
import { freshDatabase } from './test-databases.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL;
export const dialectName = TEST_DATABASE_URL ? 'postgres' : 'sqlite';

export interface TestApp {
  app: FastifyInstance;
  deps: Deps;
  clock: ManualClock;
  config: Config;
  /** what a second instance needs to share this one's database and counters */
  storage: SharedStorage;
  close(): Promise<void>;
}

export interface SharedStorage {
  databaseUrl: string;
  schema?: string;
  redisPrefix: string;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  /** build a second instance over the same database and counter store */
  sharedWith?: TestApp;
  /** more of the composition root's seams (a webhook resolver) */
  overrides?: Pick<DepsOverrides, 'webhookResolver' | 'onWebhookError' | 'workerQueueTimeoutMs'>;
  /**
   * Start from an empty database that the app's migrator fills, as on a first start; by default the
   * database is a copy of the run's template, which the same migrations made (test/helpers/templates.ts).
   * The default for the files of MIGRATION_TESTS is true.
   */
  migrated?: boolean;
}

/** Test files about the migrations themselves: their apps run every migration. */
const MIGRATION_TESTS = new Set(['storage.test.ts']);
const testsMigrations = (): boolean => {
  const file = expect.getState().testPath;
  return file !== undefined && MIGRATION_TESTS.has(path.basename(file));
};

/**
 * One worker pool for the apps of a test file: a thread starts in about a second, and most tests
 * build an app each. An app whose env sets WORKER_* gets a pool of its own, with those bounds.
 */
let sharedWorkers: WorkerPool | undefined;
const testWorkers = (env: Record<string, string> | undefined): WorkerPool | undefined => {
  if (Object.keys(env ?? {}).some((name) => name.startsWith('WORKER_'))) return undefined;
  sharedWorkers ??= new WorkerPool({ threads: 2, taskTimeoutMs: 30_000, memoryMb: 1_024 });
  return sharedWorkers;
};

async function freshStorage(migrated: boolean): Promise<SharedStorage> {
  const redisPrefix = `quire-test:${randomBytes(6).toString('hex')}:`;
  return { ...(await freshDatabase(TEST_DATABASE_URL, migrated)), redisPrefix };
}

/**
 * A real app over a real database: a new SQLite file per app, or with TEST_DATABASE_URL a new
 * PostgreSQL schema per app; Redis counters with TEST_REDIS_URL. Each test creates its own data.
 * The app runs the migrations, which find nothing to do in a copy of the template.
 */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const storage = options.sharedWith?.storage ?? (await freshStorage(options.migrated ?? testsMigrations()));
  const config = loadConfig({
    DATABASE_URL: storage.databaseUrl,
    ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
    QUIRE_BOOTSTRAP: 'false',
    LOG_LEVEL: 'silent',
    // Background renders after each write would race the tests that count renders; the tests of
    // rendering ahead turn it on.
    RENDER_AHEAD: 'false',
    // As a deployment on PostgreSQL must have it (private sites answer 503 without); '' unsets it.
    SITE_SESSION_SECRET: Buffer.alloc(32, 1).toString('base64'),
    ...options.env,
  });
  const clock =
    options.clock ?? options.sharedWith?.clock ?? new ManualClock(Date.parse('2026-11-21T10:15:00Z'));
  const workers = testWorkers(options.env);
  const deps = createDeps(config, {
    ...options.overrides,
    clock,
    ...(workers ? { workers } : {}),
    redisPrefix: storage.redisPrefix,
    ...(storage.schema ? { schema: storage.schema } : {}),
  });
  await upgradeDatabase(deps.database, storage.schema);
  const app = await buildApp(deps, { logger: false, instrument: checkAnswers() });
  return {
    app,
    deps,
    clock,
    config,
    storage,
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

export type Response = LightMyRequestResponse & { body: string };

/** A small HTTP client over app.inject: paths are relative to /api/v1. */
export function client(app: FastifyInstance, key?: string) {
  const send = (
    method: InjectOptions['method'],
    url: string,
    options: Omit<InjectOptions, 'method' | 'url'> = {},
  ) =>
    app.inject({
      method,
      url:
        url.startsWith('/api/') || url.startsWith('/healthz') || url.startsWith('/readyz')
          ? url
          : `/api/v1${url}`,
      ...options,
      headers: {
        ...(key !== undefined ? { 'x-api-key': key } : {}),
        // Every write in its key's transaction (decision 0021): no write path may wait on itself there.
        ...(process.env.TEST_IDEMPOTENCY_KEYS === '1' && method !== 'GET'
          ? { 'idempotency-key': randomBytes(12).toString('hex') }
          : {}),
        ...(options.headers ?? {}),
      },
    });
  return {
    get: (url: string, options?: Omit<InjectOptions, 'method' | 'url'>) => send('GET', url, options),
    post: (url: string, payload?: unknown, options?: Omit<InjectOptions, 'method' | 'url'>) =>
      send('POST', url, { ...(payload !== undefined ? { payload: payload as object } : {}), ...options }),
    put: (url: string, payload?: unknown, options?: Omit<InjectOptions, 'method' | 'url'>) =>
      send('PUT', url, { ...(payload !== undefined ? { payload: payload as object } : {}), ...options }),
    delete: (url: string, options?: Omit<InjectOptions, 'method' | 'url'>) => send('DELETE', url, options),
    patch: (url: string, payload?: unknown, options?: Omit<InjectOptions, 'method' | 'url'>) =>
      send('PATCH', url, { ...(payload !== undefined ? { payload: payload as object } : {}), ...options }),
    send,
  };
}

/** The error body every error must have. */
export function expectErrorShape(res: { statusCode: number; json(): unknown }): {
  message: string;
  details?: unknown;
} {
  const body = res.json() as {
    error: { message: string; httpCode: number; code: number; details?: unknown };
  };
  if (body.error.httpCode !== res.statusCode || body.error.code !== res.statusCode) {
    throw new Error(
      `error body codes ${body.error.httpCode}/${body.error.code} do not match status ${res.statusCode}`,
    );
  }
  if (typeof body.error.message !== 'string' || body.error.message === '')
    throw new Error('error message missing');
  return body.error;
}

/**
 * A fresh app for every test of the file, closed after it: `const t = useTestApp();` then `t.app`,
 * `t.deps`… always name the current test's app.
 */
export function useTestApp(options: TestAppOptions = {}): TestApp {
  let current: TestApp | undefined;
  beforeEach(async () => {
    current = await buildTestApp(options);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return currentApp(() => current, 'useTestApp: no app outside a test');
}

/** A TestApp whose every field names what `current()` gives at the time (an app of a test's hooks). */
export function currentApp(current: () => TestApp | undefined, missing: string): TestApp {
  const now = (): TestApp => {
    const app = current();
    if (!app) throw new Error(missing);
    return app;
  };
  return {
    get app() {
      return now().app;
    },
    get deps() {
      return now().deps;
    },
    get clock() {
      return now().clock;
    },
    get config() {
      return now().config;
    },
    get storage() {
      return now().storage;
    },
    close: () => now().close(),
  };
}
