import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      host: '0.0.0.0',
      port: 8080,
      databaseUrl: 'sqlite:./data/quire.db',
      redisUrl: null,
      redisKeyPrefix: 'quire:rl:',
      rateLimitScale: 1,
      corsOrigins: null,
      bootstrap: true,
      bootstrapKey: null,
      logLevel: 'info',
      trustProxy: false,
      databaseStatementTimeoutMs: 10000,
      databaseConnectTimeoutMs: 5000,
      workerThreads: null,
      workerTaskTimeoutMs: 30000,
      workerMemoryMb: 1024,
      shutdownTimeoutMs: 30000,
      webhookSecretKey: null,
      webhookAllowPrivate: false,
      webhookTimeoutMs: 10000,
      webhookPollIntervalMs: 1000,
      webhookConcurrency: 8,
      metrics: true,
      metricsToken: null,
      cacheMemoryMb: 256,
      renderStoreMb: 1024,
      renderAhead: true,
      sqliteMmapMb: 1024,
      siteCacheControl: 'public, max-age=0, must-revalidate',
      siteSessionSecret: null,
      smtpUrl: null,
      mailFrom: 'Quire <quire@localhost>',
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: '9000',
      DATABASE_URL: 'postgres://u@db/quire',
      REDIS_URL: 'redis://cache:6379',
      REDIS_KEY_PREFIX: 'docs-eu:rl:',
      RATE_LIMIT_SCALE: '2.5',
      CORS_ORIGINS: 'https://docs.acme.io, https://acme.io',
      QUIRE_BOOTSTRAP: 'false',
      QUIRE_BOOTSTRAP_KEY: `qk_${'a'.repeat(40)}`,
      LOG_LEVEL: 'debug',
      TRUST_PROXY: '10.0.0.0/8, 192.168.1.1',
      DATABASE_STATEMENT_TIMEOUT: '2500',
      DATABASE_CONNECT_TIMEOUT: '750',
      WORKER_THREADS: '3',
      WORKER_TASK_TIMEOUT: '12000',
      WORKER_MEMORY_MB: '512',
      SHUTDOWN_TIMEOUT: '4000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT: '3000',
      WEBHOOK_POLL_INTERVAL: '250',
      WEBHOOK_CONCURRENCY: '4',
      METRICS: 'false',
      CACHE_MEMORY_MB: '1024',
      RENDER_STORE_MB: '64',
      SQLITE_MMAP_MB: '0',
      SITE_CACHE_CONTROL: 'public, max-age=0, s-maxage=60',
    });
    expect(config).toMatchObject({
      siteCacheControl: 'public, max-age=0, s-maxage=60',
      cacheMemoryMb: 1024,
      renderStoreMb: 64,
      sqliteMmapMb: 0,
      redisKeyPrefix: 'docs-eu:rl:',
      webhookAllowPrivate: true,
      webhookTimeoutMs: 3000,
      webhookPollIntervalMs: 250,
      webhookConcurrency: 4,
      metrics: false,
      host: '127.0.0.1',
      port: 9000,
      rateLimitScale: 2.5,
      corsOrigins: ['https://docs.acme.io', 'https://acme.io'],
      bootstrap: false,
      logLevel: 'debug',
      trustProxy: ['10.0.0.0/8', '192.168.1.1'],
      databaseStatementTimeoutMs: 2500,
      databaseConnectTimeoutMs: 750,
      workerThreads: 3,
      workerTaskTimeoutMs: 12000,
      workerMemoryMb: 512,
      shutdownTimeoutMs: 4000,
    });
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ METRICS: '0' }).metrics).toBe(false);
    expect(loadConfig({ METRICS: 'true' }).metrics).toBe(true);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('stops with every problem listed', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'http://x',
        RATE_LIMIT_SCALE: '0',
        CORS_ORIGINS: 'not an origin',
        QUIRE_BOOTSTRAP: 'maybe',
        QUIRE_BOOTSTRAP_KEY: 'short',
        LOG_LEVEL: 'loud',
        TRUST_PROXY: 'the load balancer',
        DATABASE_STATEMENT_TIMEOUT: '5s',
        DATABASE_CONNECT_TIMEOUT: '10',
        WORKER_THREADS: '0',
        WORKER_TASK_TIMEOUT: 'forever',
        WORKER_MEMORY_MB: '1',
        SHUTDOWN_TIMEOUT: '-1',
        REDIS_KEY_PREFIX: 'two words',
        WEBHOOK_ALLOW_PRIVATE: 'maybe',
        WEBHOOK_TIMEOUT: 'soon',
        WEBHOOK_CONCURRENCY: '0',
        METRICS: 'off',
        CACHE_MEMORY_MB: 'lots',
        RENDER_STORE_MB: '0',
        SQLITE_MMAP_MB: '4096',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(23);
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'REDIS_URL',
      'RATE_LIMIT_SCALE',
      'CORS_ORIGINS',
      'QUIRE_BOOTSTRAP',
      'QUIRE_BOOTSTRAP_KEY',
      'LOG_LEVEL',
      'DATABASE_STATEMENT_TIMEOUT',
      'DATABASE_CONNECT_TIMEOUT',
      'WORKER_THREADS',
      'WORKER_TASK_TIMEOUT',
      'WORKER_MEMORY_MB',
      'REDIS_KEY_PREFIX',
      'WEBHOOK_ALLOW_PRIVATE',
      'WEBHOOK_TIMEOUT',
      'WEBHOOK_CONCURRENCY',
      'SHUTDOWN_TIMEOUT',
      'METRICS',
      'CACHE_MEMORY_MB',
      'RENDER_STORE_MB',
      'SQLITE_MMAP_MB',
    ]) {
      expect(problems.some((p) => p.startsWith(name))).toBe(true);
    }
  });
});
