import type { WalCheckpointer } from '../db/checkpointer.ts';
import type { LinkScanWarmer } from '../modules/links/link-scans.warmer.ts';
import type { IdempotencyService } from '../modules/idempotency/idempotency.service.ts';
import type { ImportStaging } from '../modules/import/import.stage.ts';
import type { PagesService } from '../modules/pages/pages.service.ts';
import type { WebhookDispatcher } from '../modules/webhooks/webhooks.dispatcher.ts';
import type { MailDispatcher } from '../modules/reader-login/mail-dispatcher.ts';
import type { ReaderLoginService } from '../modules/reader-login/reader-login.service.ts';
import type { SiteKeys } from '../modules/reader-login/site-keys.ts';
import type { WorkerPool } from '../workers/pool.ts';
import { drained, periodic, type Job, type JobLog } from './job.ts';

const MINUTE_MS = 60 * 1000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export interface JobSources {
  checkpointer: WalCheckpointer;
  pages: PagesService;
  linkScans: LinkScanWarmer;
  webhookDispatcher: WebhookDispatcher;
  workers: WorkerPool;
  idempotency: IdempotencyService;
  /** SQLite only */
  importStaging: ImportStaging | null;
  mailDispatcher: MailDispatcher;
  readerLogin: ReaderLoginService;
  siteKeys: SiteKeys;
}

const reportPurged = (what: string) => (log: JobLog, purged: unknown) =>
  log.info({ purged }, `${what} purged`);

/** A purge of old rows, run at start and daily. */
const dailyPurge = (what: string, purge: () => Promise<unknown>): Job =>
  periodic({
    name: `purge ${what}`,
    everyMs: DAY_MS,
    run: purge,
    done: reportPurged(what),
    failure: `purge of ${what} failed`,
  });

/**
 * Every background job of a server, in the order they start. Closed in the reverse order: the
 * outbox stops sending, then the work change events started drains (link scans, renders ahead), the
 * stored renders are flushed, and the SQLite checkpoint thread stops last.
 */
export function serverJobs(from: JobSources): Job[] {
  return [
    // SQLite: the WAL is copied into the file beside the event loop, not inside a request's commit.
    {
      name: 'WAL checkpoints',
      start: () => from.checkpointer.start(),
      close: () => from.checkpointer.close(),
    },
    drained('stored renders', () => from.pages.rendered.close()),
    drained('renders ahead', () => from.pages.ahead.close()),
    drained('link scans', () => from.linkScans.close()),
    // Every instance sends the outbox.
    {
      name: 'webhook outbox',
      start: () => from.webhookDispatcher.start(),
      close: () => from.webhookDispatcher.close(),
    },
    // Mail (sign-in links, invitations) goes after the answers that queued it; every instance sends.
    {
      name: 'mail outbox',
      start: (log) => from.mailDispatcher.start(log),
      close: () => from.mailDispatcher.close(),
    },
    // Nothing runs: the start says why private sites will answer 503 (PostgreSQL without the secret).
    {
      name: 'site session key',
      start: (log) => {
        const missing = from.siteKeys.missing;
        if (missing !== null) log.warn({}, missing);
      },
      close: async () => undefined,
    },
    // In the background: the server answers at once, and the first upload finds a warm thread.
    {
      name: 'worker warm-up',
      start: (log) =>
        void from.workers.warm().catch((error: unknown) => log.warn({ err: error }, 'worker warm-up failed')),
      close: async () => undefined,
    },
    // Idempotency keys are kept a day: forgotten on start and every hour after.
    periodic({
      name: 'purge idempotency keys',
      everyMs: HOUR_MS,
      run: () => from.idempotency.purge(),
      failure: 'idempotency purge failed',
    }),
    // What imports that can no longer finish left staged (their process died, or their clean-up
    // failed): removed on start, so that a retry after a crash finds none of it, and every 5 minutes.
    ...(from.importStaging === null
      ? []
      : [
          periodic({
            name: 'remove abandoned imports',
            everyMs: 5 * MINUTE_MS,
            run: () => from.importStaging?.sweep() ?? Promise.resolve(0),
            done: (log, removed) => {
              if (removed !== 0) log.info({ removed }, 'abandoned imports removed');
            },
            failure: 'removal of abandoned imports failed',
          }),
        ]),
    // Deleted pages, sections, references and versions, link scans and webhook deliveries finished,
    // after 30 days; rendered contents neither stored nor found for 7 days. Scans and outputs are
    // made again when needed.
    dailyPurge('deleted rows', () => from.pages.purgeDeleted()),
    dailyPurge('old link scans', () => from.linkScans.purge()),
    dailyPurge('old rendered contents', () => from.pages.rendered.purge()),
    // What other instances stored counts too: every instance weighs the whole store now and then.
    periodic({
      name: 'stored renders under RENDER_STORE_MB',
      everyMs: 10 * MINUTE_MS,
      run: () => from.pages.rendered.evict(),
      done: (log, evicted) => {
        if (evicted !== 0) log.info({ evicted }, 'stored renders evicted');
      },
      failure: 'eviction of stored renders failed',
    }),
    dailyPurge('old webhook deliveries', () => from.webhookDispatcher.purge()),
    dailyPurge('ended reader sessions and links', () => from.readerLogin.purge()),
    dailyPurge('sent mail', () => from.mailDispatcher.purge()),
  ];
}
