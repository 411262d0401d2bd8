/**
 * Environment → typed, frozen configuration. This is the only module that reads process.env;
 * everything else receives the Config object.
 */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  readonly redisUrl: string | null;
  /** REDIS_KEY_PREFIX: what the rate-limit counters' keys start with (deployments sharing one Redis) */
  readonly redisKeyPrefix: string;
  readonly rateLimitScale: number;
  /** null: search answers every origin; otherwise only these origins */
  readonly corsOrigins: readonly string[] | null;
  readonly bootstrap: boolean;
  readonly bootstrapKey: string | null;
  readonly logLevel: LogLevel;
  /**
   * Whom to believe about the client address (X-Forwarded-For): false (nobody), true (any proxy),
   * a hop count, or proxy addresses / CIDR ranges. Rate limits on failed authentication and the
   * audit log's ipAddress depend on it behind a load balancer.
   */
  readonly trustProxy: boolean | number | readonly string[];
  /** PostgreSQL: the longest a statement may run before the database cancels it (ms) */
  readonly databaseStatementTimeoutMs: number;
  /** PostgreSQL: the longest a new connection may take to open (ms) */
  readonly databaseConnectTimeoutMs: number;
  /** worker threads for heavy work (OpenAPI files, large renders); null: one per core, 1 to 4 */
  readonly workerThreads: number | null;
  /** the longest one worker task may run (ms) */
  readonly workerTaskTimeoutMs: number;
  /** the heap one worker thread may grow to (MiB) */
  readonly workerMemoryMb: number;
  /** on SIGTERM, the longest the server waits for requests in flight before it exits anyway (ms) */
  readonly shutdownTimeoutMs: number;
  /**
   * WEBHOOK_SECRET_KEY: the AES-256 key (32 bytes) that encrypts webhook secrets at rest; null: a key
   * file beside a SQLite database, a key per process in memory, none on PostgreSQL (webhooks refused)
   */
  readonly webhookSecretKey: Buffer | null;
  /** WEBHOOK_ALLOW_PRIVATE: webhooks may target loopback, private and link-local addresses (tests) */
  readonly webhookAllowPrivate: boolean;
  /** WEBHOOK_TIMEOUT: the longest one delivery attempt may take (ms) */
  readonly webhookTimeoutMs: number;
  /** WEBHOOK_POLL_INTERVAL: how often the dispatcher looks for due deliveries, others' included (ms) */
  readonly webhookPollIntervalMs: number;
  /** WEBHOOK_CONCURRENCY: delivery attempts in flight at once per instance */
  readonly webhookConcurrency: number;
  /** METRICS: GET /metrics answers, and requests, queries and caches are counted for it */
  readonly metrics: boolean;
  /** METRICS_TOKEN: when set, GET /metrics answers only a request with `Authorization: Bearer <it>` */
  readonly metricsToken: string | null;
  /** CACHE_MEMORY_MB: what cached page answers and rendered contents may weigh together (MiB) */
  readonly cacheMemoryMb: number;
  /** RENDER_STORE_MB: what rendered contents stored in the database may weigh (MiB); the oldest go first */
  readonly renderStoreMb: number;
  /** RENDER_AHEAD: pages' HTML is rendered and stored in the background after their contents change */
  readonly renderAhead: boolean;
  /** SQLITE_MMAP_MB: how much of a SQLite file each connection reads through memory mapping (MiB; 0: none) */
  readonly sqliteMmapMb: number;
  /**
   * SITE_CACHE_CONTROL: the Cache-Control of public projects' site answers (default
   * `public, max-age=0, must-revalidate`; an operator behind a CDN may add `s-maxage`)
   */
  readonly siteCacheControl: string;
  /**
   * SITE_SESSION_SECRET: the key (32 bytes) that signs readers' session cookies on private sites and
   * seals their projects' HS256 login secrets; null: a key file beside a SQLite database, a key per
   * process in memory, none on PostgreSQL (private sites answer 503)
   */
  readonly siteSessionSecret: Buffer | null;
  /** SMTP_URL: where readers' mail goes (`smtp://` or `smtps://`, user and password in it); null: the log */
  readonly smtpUrl: string | null;
  /** MAIL_FROM: the sender of readers' mail */
  readonly mailFrom: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const DEFAULT_DATABASE_URL = 'sqlite:./data/quire.db';

export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const problems: string[] = [];
  const get = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };

  const host = get('HOST') ?? '0.0.0.0';

  let port = 8080;
  const rawPort = get('PORT');
  if (rawPort !== undefined) {
    port = Number(rawPort);
    if (!/^\d+$/.test(rawPort) || port < 0 || port > 65535) {
      problems.push(`PORT must be an integer from 0 to 65535 (got '${rawPort}')`);
    }
  }

  const databaseUrl = get('DATABASE_URL') ?? DEFAULT_DATABASE_URL;
  if (!/^sqlite:.+/.test(databaseUrl) && !/^postgres(ql)?:\/\/.+/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must start with 'sqlite:' or 'postgres://' (got '${databaseUrl}')`);
  }

  const redisUrl = get('REDIS_URL') ?? null;
  if (redisUrl !== null && !/^rediss?:\/\/.+/.test(redisUrl)) {
    problems.push(`REDIS_URL must start with 'redis://' or 'rediss://' (got '${redisUrl}')`);
  }

  const redisKeyPrefix = get('REDIS_KEY_PREFIX') ?? 'quire:rl:';
  if (!/^[\x21-\x7e]{1,64}$/.test(redisKeyPrefix)) {
    problems.push(
      `REDIS_KEY_PREFIX must be 1-64 printable characters without spaces (got '${redisKeyPrefix}')`,
    );
  }

  let rateLimitScale = 1;
  const rawScale = get('RATE_LIMIT_SCALE');
  if (rawScale !== undefined) {
    rateLimitScale = Number(rawScale);
    if (!Number.isFinite(rateLimitScale) || rateLimitScale <= 0) {
      problems.push(`RATE_LIMIT_SCALE must be a positive number (got '${rawScale}')`);
    }
  }

  let corsOrigins: string[] | null = null;
  const rawOrigins = get('CORS_ORIGINS');
  if (rawOrigins !== undefined && rawOrigins !== '*') {
    corsOrigins = rawOrigins
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o !== '');
    for (const origin of corsOrigins) {
      if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
        problems.push(`CORS_ORIGINS entries must be origins like https://docs.example.com (got '${origin}')`);
      }
    }
  }

  let bootstrap = true;
  const rawBootstrap = get('QUIRE_BOOTSTRAP');
  if (rawBootstrap !== undefined) {
    if (rawBootstrap === 'true' || rawBootstrap === '1') bootstrap = true;
    else if (rawBootstrap === 'false' || rawBootstrap === '0') bootstrap = false;
    else problems.push(`QUIRE_BOOTSTRAP must be 'true' or 'false' (got '${rawBootstrap}')`);
  }

  const bootstrapKey = get('QUIRE_BOOTSTRAP_KEY') ?? null;
  if (bootstrapKey !== null && !/^qk_[A-Za-z0-9_-]{32,200}$/.test(bootstrapKey)) {
    problems.push(
      "QUIRE_BOOTSTRAP_KEY must start with 'qk_' followed by at least 32 letters, digits, '-' or '_'",
    );
  }

  const logLevel = (get('LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got '${String(logLevel)}')`);
  }

  let trustProxy: boolean | number | string[] = false;
  const rawTrust = get('TRUST_PROXY');
  if (rawTrust !== undefined) {
    if (rawTrust === 'true' || rawTrust === 'false') trustProxy = rawTrust === 'true';
    else if (/^\d{1,2}$/.test(rawTrust)) trustProxy = Number(rawTrust);
    else {
      trustProxy = rawTrust
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean);
      if (!trustProxy.every((a) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(a))) {
        problems.push(
          `TRUST_PROXY must be true, false, a hop count, or proxy addresses/CIDRs (got '${rawTrust}')`,
        );
      }
    }
  }

  const milliseconds = (name: string, fallback: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < 100 || value > 600_000) {
      problems.push(`${name} must be a number of milliseconds from 100 to 600000 (got '${raw}')`);
      return fallback;
    }
    return value;
  };
  const databaseStatementTimeoutMs = milliseconds('DATABASE_STATEMENT_TIMEOUT', 10_000);
  const databaseConnectTimeoutMs = milliseconds('DATABASE_CONNECT_TIMEOUT', 5_000);
  const workerTaskTimeoutMs = milliseconds('WORKER_TASK_TIMEOUT', 30_000);
  const shutdownTimeoutMs = milliseconds('SHUTDOWN_TIMEOUT', 30_000);

  const count = (name: string, min: number, max: number): number | null => {
    const raw = get(name);
    if (raw === undefined) return null;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got '${raw}')`);
      return null;
    }
    return value;
  };
  const flag = (name: string, fallback: boolean): boolean => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    problems.push(`${name} must be 'true' or 'false' (got '${raw}')`);
    return fallback;
  };
  const workerThreads = count('WORKER_THREADS', 1, 64);
  const workerMemoryMb = count('WORKER_MEMORY_MB', 32, 16_384) ?? 1_024;

  const webhookSecretKey = base64Key(get('WEBHOOK_SECRET_KEY'), 'WEBHOOK_SECRET_KEY', problems);

  const webhookAllowPrivate = flag('WEBHOOK_ALLOW_PRIVATE', false);
  const webhookTimeoutMs = milliseconds('WEBHOOK_TIMEOUT', 10_000);
  const webhookPollIntervalMs = milliseconds('WEBHOOK_POLL_INTERVAL', 1_000);
  const webhookConcurrency = count('WEBHOOK_CONCURRENCY', 1, 256) ?? 8;
  const cacheMemoryMb = count('CACHE_MEMORY_MB', 1, 65_536) ?? 256;
  const renderStoreMb = count('RENDER_STORE_MB', 1, 1_048_576) ?? 1_024;

  const metrics = flag('METRICS', true);
  const metricsToken = get('METRICS_TOKEN') ?? null;
  if (metricsToken !== null && !/^[\x21-\x7e]{16,512}$/.test(metricsToken)) {
    // Not echoed: it is a secret.
    problems.push('METRICS_TOKEN must be 16-512 printable characters without spaces');
  }
  const renderAhead = flag('RENDER_AHEAD', true);
  // SQLite's own ceiling is just under 2 GiB (SQLITE_MAX_MMAP_SIZE in the driver's build).
  const sqliteMmapMb = count('SQLITE_MMAP_MB', 0, 2047) ?? 1024;

  const siteCacheControl = get('SITE_CACHE_CONTROL')?.trim() || 'public, max-age=0, must-revalidate';
  if (!/^[A-Za-z0-9=,\- ]+$/.test(siteCacheControl)) {
    problems.push('SITE_CACHE_CONTROL may hold only directives such as public, max-age=0, s-maxage=60');
  }

  const siteSessionSecret = base64Key(get('SITE_SESSION_SECRET'), 'SITE_SESSION_SECRET', problems);

  const smtpUrl = get('SMTP_URL') ?? null;
  if (smtpUrl !== null && !/^smtps?:\/\/[^\s]+$/i.test(smtpUrl)) {
    // Not echoed: the URL may hold a password.
    problems.push("SMTP_URL must start with 'smtp://' or 'smtps://' (user and password may be in it)");
  }
  const mailFrom = get('MAIL_FROM') ?? 'Quire <quire@localhost>';
  if (!/^([^<>\r\n]{0,100}<[^<>\s@]+@[^<>\s@]+>|[^<>\s@]+@[^<>\s@]+)$/.test(mailFrom)) {
    problems.push(`MAIL_FROM must be an address, or a name and an address in <> (got '${mailFrom}')`);
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    host,
    port,
    databaseUrl,
    redisUrl,
    redisKeyPrefix,
    rateLimitScale,
    corsOrigins: corsOrigins === null ? null : Object.freeze(corsOrigins),
    bootstrap,
    bootstrapKey,
    logLevel,
    trustProxy: Array.isArray(trustProxy) ? Object.freeze(trustProxy) : trustProxy,
    databaseStatementTimeoutMs,
    databaseConnectTimeoutMs,
    workerThreads,
    workerTaskTimeoutMs,
    workerMemoryMb,
    shutdownTimeoutMs,
    webhookSecretKey,
    webhookAllowPrivate,
    webhookTimeoutMs,
    webhookPollIntervalMs,
    webhookConcurrency,
    metrics,
    metricsToken,
    cacheMemoryMb,
    renderStoreMb,
    renderAhead,
    sqliteMmapMb,
    siteCacheControl,
    siteSessionSecret,
    smtpUrl,
    mailFrom,
  });
}

/** A key given as base64 of 32 bytes, or null when unset; the value is never echoed, being a secret. */
function base64Key(raw: string | undefined, name: string, problems: string[]): Buffer | null {
  if (raw === undefined) return null;
  const decoded = Buffer.from(raw, 'base64');
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(raw) && decoded.length === 32) return decoded;
  problems.push(
    `${name} must be base64 of exactly 32 random bytes (e.g. the output of \`openssl rand -base64 32\`)`,
  );
  return null;
}
