import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/dialect.ts';
import { AllService } from './modules/all/all.service.ts';
import { AuditRecorder } from './modules/audit/audit.recorder.ts';
import { AuditService } from './modules/audit/audit.service.ts';
import { DocumentationService } from './modules/documentation/documentation.service.ts';
import { KeysService } from './modules/keys/keys.service.ts';
import { PagesService } from './modules/pages/pages.service.ts';
import { ProjectsService } from './modules/projects/projects.service.ts';
import { ReaderAccessService } from './modules/reader-access/reader-access.service.ts';
import { ReferencesService } from './modules/references/references.service.ts';
import { UsersService } from './modules/users/users.service.ts';
import { VersionsService } from './modules/versions/versions.service.ts';
import type { CounterStore } from './ratelimit/counter-store.ts';
import { MemoryCounterStore } from './ratelimit/memory-store.ts';
import { RedisCounterStore } from './ratelimit/redis-store.ts';

/** The composition root: every service is built here, once per app; nothing is a module singleton. */
export interface Deps {
  config: Config;
  clock: Clock;
  database: DatabaseHandle;
  counters: CounterStore;
  audit: AuditRecorder;
  auditLog: AuditService;
  projects: ProjectsService;
  keys: KeysService;
  users: UsersService;
  versions: VersionsService;
  documentation: DocumentationService;
  references: ReferencesService;
  pages: PagesService;
  readerAccess: ReaderAccessService;
  all: AllService;
  close(): Promise<void>;
}

export interface DepsOverrides {
  clock?: Clock;
  /** PostgreSQL schema to work in (tests isolate themselves with one each) */
  schema?: string;
  /** Redis key prefix (tests isolate themselves with one each) */
  redisPrefix?: string;
  database?: DatabaseHandle;
  counters?: CounterStore;
}

export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  const clock = overrides.clock ?? systemClock;
  const database =
    overrides.database ??
    openDatabase(config.databaseUrl, overrides.schema !== undefined ? { schema: overrides.schema } : {});
  const counters =
    overrides.counters ??
    (config.redisUrl !== null
      ? new RedisCounterStore(config.redisUrl, overrides.redisPrefix)
      : new MemoryCounterStore());
  const db = database.db;
  const audit = new AuditRecorder(clock);
  const versions = new VersionsService(db, clock, audit);
  const documentation = new DocumentationService(db, clock, audit, versions, database.dialect);
  const keys = new KeysService(db, clock, audit);
  return {
    config,
    clock,
    database,
    counters,
    audit,
    auditLog: new AuditService(db),
    projects: new ProjectsService(db, clock, audit, () => keys.forget()),
    keys,
    users: new UsersService(db, clock, audit),
    versions,
    documentation,
    references: new ReferencesService(db, clock, audit, versions),
    pages: new PagesService(database, clock, audit, versions, documentation),
    readerAccess: new ReaderAccessService(db, clock, audit),
    all: new AllService(db, versions),
    async close() {
      await counters.close();
      await database.close();
    },
  };
}
