import { KeysService } from './auth/keys.service.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/dialect.ts';
import { Metrics } from './http/metrics-collector.ts';
import { ChangeRecorder } from './events/change-recorder.ts';
import type { ChangeEvent } from './modules/changes/change-events.ts';
import { afterCommit } from './db/after-commit.ts';
import { ChangeStamps } from './db/change-stamps.ts';
import { ReadersService } from './modules/readers/readers.service.ts';
import { AllService } from './modules/all/all.service.ts';
import { auditSubscriber } from './modules/audit/audit.subscriber.ts';
import { AuditService } from './modules/audit/audit.service.ts';
import { FeedbackService } from './modules/feedback/feedback.service.ts';
import { ChangelogsService } from './modules/changelogs/changelogs.service.ts';
import { BrokenLinksService } from './modules/links/links.service.ts';
import { linkScansSubscriber } from './modules/links/link-scans.events.ts';
import { LinkScanWarmer } from './modules/links/link-scans.warmer.ts';
import { renderAheadSubscriber } from './modules/pages/render-ahead.ts';
import { RenderRoom } from './modules/pages/render-room.ts';
import { IdempotencyService } from './modules/idempotency/idempotency.service.ts';
import { ExportService } from './modules/export/export.service.ts';
import { ImportService } from './modules/import/import.service.ts';
import { DocumentationService } from './modules/documentation/documentation.service.ts';
import { PagesService } from './modules/pages/pages.service.ts';
import { ProjectsService } from './modules/projects/projects.service.ts';
import { ReaderAccessService } from './modules/reader-access/reader-access.service.ts';
import { MailDispatcher } from './modules/reader-login/mail-dispatcher.ts';
import { logSender, smtpSender } from './modules/reader-login/mail-sender.ts';
import { ReaderLoginService } from './modules/reader-login/reader-login.service.ts';
import { SiteKeys } from './modules/reader-login/site-keys.ts';
import { RedirectsService } from './modules/redirects/redirects.service.ts';
import { formerSlugsSubscriber } from './modules/redirects/redirects.subscriber.ts';
import { ReferencesService } from './modules/references/references.service.ts';
import { searchSubscriber } from './modules/search/search.events.ts';
import { SearchIndexer } from './modules/search/search.indexer.ts';
import { SearchRepository } from './modules/search/search.repository.ts';
import { SearchService } from './modules/search/search.service.ts';
import { UsersService } from './modules/users/users.service.ts';
import { VersionsService } from './modules/versions/versions.service.ts';
import { systemResolver } from './modules/webhooks/webhook-address.ts';
import { SecretBox } from './modules/webhooks/webhook-secrets.ts';
import { WebhookDispatcher } from './modules/webhooks/webhooks.dispatcher.ts';
import { WebhookSubscriptions, webhooksSubscriber } from './modules/webhooks/webhooks.events.ts';
import { WebhooksService } from './modules/webhooks/webhooks.service.ts';
import type { WorkerPool } from './workers/pool.ts';
import { unavailableIfTaskFails } from './workers/task-unavailable.ts';
import { WalCheckpointer } from './db/checkpointer.ts';
import type { Job } from './jobs/job.ts';
import { serverJobs } from './jobs/server-jobs.ts';
import { ImportStaging } from './modules/import/import.stage.ts';
import type { CounterStore } from './ratelimit/counter-store.ts';
import {
  counterStore,
  openDepsDatabase,
  webhookKeySource,
  workerPool,
  type DepsOverrides,
} from './deps.infrastructure.ts';

export type { DepsOverrides } from './deps.infrastructure.ts';

/** The composition root: every service is built here, once per app; nothing is a module singleton. */
export interface Deps {
  config: Config;
  clock: Clock;
  database: DatabaseHandle;
  counters: CounterStore;
  /** every change is recorded through it, in the change's transaction; the audit log subscribes */
  changes: ChangeRecorder<ChangeEvent>;
  auditLog: AuditService;
  projects: ProjectsService;
  keys: KeysService;
  users: UsersService;
  versions: VersionsService;
  documentation: DocumentationService;
  references: ReferencesService;
  pages: PagesService;
  readerAccess: ReaderAccessService;
  /** readers' sign-in on private sites: links, sessions, the project's own login (site.md §6) */
  readerLogin: ReaderLoginService;
  /** sends the mail outbox (sign-in links, invitations); the server starts it, tests call drain() */
  mailDispatcher: MailDispatcher;
  /** the site's server secret: session cookies and sealed login secrets */
  siteKeys: SiteKeys;
  changelogs: ChangelogsService;
  /** the broken-links report of a version */
  links: BrokenLinksService;
  /** link scans stored for the report: made in the background as contents change; purged after 30 days */
  linkScans: LinkScanWarmer;
  all: AllService;
  /** what readers can see, for the reader site: the project, its versions, a version's navigation */
  readers: ReadersService;
  /** the site's redirects: former slugs (remembered as they change) and each project's rules */
  redirects: RedirectsService;
  search: SearchService;
  exports: ExportService;
  /** Idempotency-Key claims and their answers, in the database */
  idempotency: IdempotencyService;
  imports: ImportService;
  /** keeps the search index equal to what readers can see (a change subscriber; also the CLI's reindex) */
  searchIndex: SearchIndexer;
  /** heavy work off the event loop: OpenAPI files, large renders */
  workers: WorkerPool;
  webhooks: WebhooksService;
  /** readers' feedback on pages: stored from the site, read over the API and in version reports */
  feedback: FeedbackService;
  /** sends the webhook outbox; the server starts it, the CLI never does, tests call runOnce() */
  webhookDispatcher: WebhookDispatcher;
  /** what GET /metrics reports, counted as the app works; null with METRICS=false (nothing counted) */
  metrics: Metrics | null;
  /** SQLite's WAL copied into the file on a thread of its own; the server starts it, nothing else does */
  checkpointer: WalCheckpointer;
  /** the background work beside the requests: the server starts them all; close() closes them */
  jobs: readonly Job[];
  close(): Promise<void>;
}

export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  const clock = overrides.clock ?? systemClock;
  const metrics = config.metrics ? new Metrics() : null;
  const database = openDepsDatabase(config, overrides, metrics);
  const counters = counterStore(config, overrides);
  const { db, reader } = database;
  const workers = workerPool(config, overrides);
  const changes = new ChangeRecorder<ChangeEvent>(clock);
  changes.subscribe(auditSubscriber);
  changes.subscribe(formerSlugsSubscriber, { derived: true });
  // Caches of page and search answers compare each project's stamp, which the database bumps on
  // every write to what they are made of.
  const stamps = new ChangeStamps(database);
  const searchIndex = new SearchIndexer(
    database.dialect,
    async (definition, format) => {
      const task = () => workers.run({ kind: 'referenceOperations', definition, format });
      return (await unavailableIfTaskFails('The search index could not be updated', task)).operations;
    },
    async (source, variables) => {
      const task = () => workers.run({ kind: 'pageSections', source, variables });
      return (await unavailableIfTaskFails('The search index could not be updated', task)).sections;
    },
  );
  changes.subscribe(searchSubscriber(searchIndex), { derived: true });
  const linkScans = new LinkScanWarmer(database, workers, clock);
  changes.subscribeCommitted(linkScansSubscriber(linkScans));
  const secrets = new SecretBox(webhookKeySource(config, database));
  const resolver = overrides.webhookResolver ?? systemResolver;
  const webhookDispatcher = new WebhookDispatcher(database, clock, secrets, {
    timeoutMs: config.webhookTimeoutMs,
    pollIntervalMs: config.webhookPollIntervalMs,
    concurrency: config.webhookConcurrency,
    allowPrivate: config.webhookAllowPrivate,
    resolver,
    onError: overrides.onWebhookError ?? (() => undefined),
  });
  const nudge = () => webhookDispatcher.nudge();
  const subscriptions = new WebhookSubscriptions(database);
  changes.subscribe(webhooksSubscriber((trx) => afterCommit(trx, nudge), subscriptions));
  const memoryBytes = config.cacheMemoryMb * 1024 * 1024;
  // Rendered contents take half the memory budget; page answers the other half.
  const storeBytes = config.renderStoreMb * 1024 * 1024;
  const renders = new RenderRoom(database, clock, workers, memoryBytes / 2, storeBytes);
  const versions = new VersionsService(db, reader, clock, changes, database.dialect);
  const documentation = new DocumentationService(db, reader, clock, changes, versions, database.dialect);
  const keys = new KeysService(db, clock, changes, undefined, reader);
  const references = new ReferencesService(db, reader, clock, changes, versions, workers, database.dialect);
  const pages = new PagesService(
    database,
    clock,
    changes,
    versions,
    documentation,
    renders,
    { stamp: (projectId) => stamps.current(projectId), memoryBytes },
    database.dialect === 'postgres' ? config.databaseStatementTimeoutMs : null,
  );
  if (config.renderAhead) changes.subscribeCommitted(renderAheadSubscriber(renders.ahead));
  const search = new SearchService(
    db,
    reader,
    new SearchRepository(database.dialect),
    searchIndex,
    versions,
    (projectId) => stamps.current(projectId),
  );
  const webhooks = new WebhooksService(database, clock, changes, secrets, {
    allowPrivate: config.webhookAllowPrivate,
    resolver,
  });
  const checkpointer = new WalCheckpointer(database.sqlite, {
    onFailure: (error) => overrides.onCheckpointError?.(error),
  });
  const idempotency = new IdempotencyService(db, database.dialect, clock, secrets);
  // SQLite: imports are written in steps, hidden until their last (decision 0020); PostgreSQL's one
  // transaction holds no other request up.
  const importStaging =
    database.dialect === 'sqlite' ? new ImportStaging(db, versions, searchIndex, changes) : null;
  const siteKeys = SiteKeys.of(config, database);
  const mailDispatcher = new MailDispatcher(
    database,
    clock,
    config.smtpUrl === null ? logSender : smtpSender(config.smtpUrl, config.mailFrom),
  );
  const readerLogin = new ReaderLoginService(database, clock, counters, siteKeys, config, () =>
    mailDispatcher.nudge(),
  );
  const jobs = serverJobs({
    checkpointer,
    pages,
    linkScans,
    webhookDispatcher,
    workers,
    idempotency,
    importStaging,
    mailDispatcher,
    readerLogin,
    siteKeys,
  });
  metrics?.watch({
    caches: {
      api_key: () => keys.cacheStats(),
      link_title: () => pages.linkTitleStats(),
      page_render: () => pages.renderStats(),
      page_render_stored: () => pages.storedRenderStats(),
      page_response: () => pages.responseCacheStats(),
      search_answer: () => search.cacheStats(),
      webhook_subscriptions: () => subscriptions.stats(),
    },
    pool: () => database.poolStats(),
    pendingDeliveries: () => webhooks.pendingDeliveries(),
    renderStoreBytes: () => pages.rendered.bytes(),
    checkpoints: () => (database.sqlite === null ? null : checkpointer.stats()),
  });
  const projects = new ProjectsService(db, clock, changes, () => keys.forget());
  const changelogs = new ChangelogsService(database, clock, changes, renders.posts);
  const feedback = new FeedbackService(db, reader, clock);
  return {
    config,
    clock,
    database,
    counters,
    changes,
    auditLog: new AuditService(reader),
    projects,
    keys,
    users: new UsersService(db, reader, clock, changes),
    versions,
    documentation,
    references,
    pages,
    readerAccess: new ReaderAccessService(db, reader, clock, changes, (trx, projectId, email, root) =>
      readerLogin.invite(trx, projectId, email, root),
    ),
    readerLogin,
    mailDispatcher,
    siteKeys,
    changelogs,
    links: new BrokenLinksService(database, versions, workers, linkScans),
    linkScans,
    all: new AllService(reader, versions),
    readers: new ReadersService(reader, (projectId) => stamps.current(projectId)),
    redirects: new RedirectsService(reader),
    search,
    exports: new ExportService(database, versions, clock, feedback),
    idempotency,
    imports: new ImportService(
      db,
      changes,
      versions,
      documentation,
      pages,
      references,
      projects,
      changelogs,
      feedback,
      importStaging,
    ),
    searchIndex,
    workers,
    webhooks,
    feedback,
    webhookDispatcher,
    metrics,
    checkpointer,
    jobs,
    async close() {
      // Background work first, the last started first: it uses the worker threads and the database.
      for (const job of [...jobs].reverse()) await job.close();
      if (overrides.workers === undefined) await workers.close();
      await counters.close();
      await database.close();
    },
  };
}
