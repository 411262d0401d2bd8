import type { Generated } from 'kysely';

/**
 * What Quire keeps beside the content itself: claimed idempotency keys, link scans, stored renders,
 * the change and navigation counters, and former slugs. Part of the Database of schema.ts.
 */
/** A claimed `Idempotency-Key`: pending (`completed` null) while its request runs, then its answer. */
export interface IdempotencyKeysTable {
  id: Generated<number>;
  api_key_id: number;
  idempotency_key: string;
  /** digest of the method, path with query, and body bytes */
  fingerprint: string;
  status: number | null;
  content_type: string | null;
  etag: string | null;
  body: string | null;
  created: string;
  completed: string | null;
  /** SQLite: `pid:instance` of the request running a claim without an answer yet (migration 0014) */
  holder: string | null;
}

/** A content's links and heading anchors as the broken-links report reads them (see link-scan.ts). */
export interface LinkScansTable {
  /** the project's variables and the content's source, by digest (links.scanner.ts scanKeys) */
  key: string;
  /** JSON of a ContentScan */
  scan: string;
  created: string;
}

/** A page's rendered output in one format, kept under its render key (pages.renderer.ts). */
export interface RenderedContentsTable {
  key: string;
  /** the output, or with `json` 1 the output as a JSON string */
  body: string;
  json: number;
  created: string;
  /** what the row weighs: its key's and body's bytes (0024), held under RENDER_STORE_MB */
  bytes: number;
}

/** A project's change counter (src/db/change-stamps.ts); no row: 0. */
export interface ChangeStampsTable {
  project_id: number;
  /** bigint: a string on PostgreSQL, a number on SQLite */
  stamp: string | number;
}

/** A version's navigation counter (migrations/0016-site-navigation.ts): moves only with its navigation. */
export interface NavigationStampsTable {
  version_id: number;
  /** bigint: a string on PostgreSQL, a number on SQLite */
  stamp: string | number;
}

/** A slug a version, section or page had before it changed (migration 0017): who held it, in what. */
export interface FormerSlugsTable {
  kind: 'version' | 'section' | 'page';
  /** the project of a version, the version of a section, the section of a page */
  parent_id: number;
  slug: string;
  target_id: number;
}
