import type { Generated } from 'kysely';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
  WebhookStampsTable,
} from './schema.webhooks.ts';
import type { FeedbackTable } from './schema.feedback.ts';
import type {
  IdempotencyKeysTable,
  LinkScansTable,
  RenderedContentsTable,
  ChangeStampsTable,
  NavigationStampsTable,
  FormerSlugsTable,
} from './schema.stores.ts';
import type { MailOutboxTable, ReaderLoginTokensTable, ReaderSessionsTable } from './schema.reader-login.ts';

export type { FeedbackTable } from './schema.feedback.ts';
export type * from './schema.stores.ts';
export type {
  DeliveryStatus,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
  WebhookStampsTable,
} from './schema.webhooks.ts';

/**
 * Row types, shared by both dialects. Portable choices: booleans are integers 0/1, timestamps are ISO
 * 8601 UTC text (sortable), JSON values are text.
 */
export type Bool = number;

export interface ProjectsTable {
  id: Generated<number>;
  name: string;
  plan: 'free' | 'grow' | 'enterprise';
  access: 'public' | 'invite';
  base_path: string | null;
  host: string | null;
  variables: string;
  /** the host of `host`, lower-cased, as a request's Host names it (shared/site-host.ts) */
  site_host: string | null;
  site_logo: string | null;
  /** `#rrggbb` */
  site_color: string | null;
  site_css: string | null;
  /** the project's redirect rules, as the file gave them */
  site_redirects: string | null;
  /** the key readers' tokens from the project's own login are checked with (reader-jwt-key.ts) */
  reader_jwt_key: string | null;
  created: string;
  updated: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  key_hash: string;
  key_prefix: string;
  /** JSON array of permission names, or ["all"] */
  permissions: string;
  /** JSON array of version ids, or null for every version */
  version_scope: string | null;
  user_id: number | null;
  revoked_at: string | null;
  created: string;
}

export interface UsersTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  email: string;
  role: 'ADMIN' | 'PUBLISHER' | 'WRITER' | 'REVIEWER';
  last_active_at: string | null;
  created: string;
}

export interface VersionsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  slug: string;
  published: Bool;
  ordr: number;
  deleted_at: string | null;
  /** set while an import writes it, hidden as deleted: the importing process (migration 0019) */
  import_stage: string | null;
  created: string;
  updated: string;
}

export interface DocumentationTable {
  id: Generated<number>;
  version_id: number;
  title: string;
  slug: string;
  published: Bool;
  ordr: number;
  deleted_at: string | null;
  created: string;
  updated: string;
}

/** Categories and pages share one index sequence per section (`position`). */
export interface CategoriesTable {
  id: Generated<number>;
  documentation_id: number;
  title: string;
  position: number;
  /** the category this one was cloned from (N2) */
  source_category_id: number | null;
  created: string;
  updated: string;
}

export interface PagesTable {
  id: Generated<number>;
  documentation_id: number;
  category_id: number | null;
  parent_page_id: number | null;
  title: string;
  slug: string;
  listed: Bool;
  content_draft: string | null;
  content_published: string | null;
  position: number;
  /** set by a delete; the page's slug then carries `~<id>`, which frees the slug for others */
  deleted_at: string | null;
  /** the page this one was cloned from (N2); reports follow it back */
  source_page_id: number | null;
  created: string;
  updated: string;
}

export interface PageHistoryTable {
  id: Generated<number>;
  page_id: number;
  operation: 'create' | 'update' | 'publish';
  message: string;
  title: string;
  slug: string;
  /** a revision written before migration 0024: its contents as they were; later ones are in `contents` */
  content_draft: string | null;
  content_published: string | null;
  /** the revision's contents packed (history-packing.ts, decision 0038); null on rows written before */
  contents: Uint8Array | null;
  api_key_id: number | null;
  /** the user of the key that made the revision, as it was then */
  user_id: number | null;
  created: string;
}

export interface ApiReferencesTable {
  id: Generated<number>;
  version_id: number;
  title: string;
  slug: string;
  ordr: number;
  published: Bool;
  definition_published: string | null;
  format_published: 'json' | 'yaml' | null;
  definition_draft: string | null;
  format_draft: 'json' | 'yaml' | null;
  deleted_at: string | null;
  created: string;
  updated: string;
}

/** One stored definition of a reference, numbered from 1 per reference (0023). */
export interface ReferenceRevisionsTable {
  id: Generated<number>;
  reference_id: number;
  revision: number;
  published: Bool;
  definition: string;
  format: 'json' | 'yaml';
  api_key_id: number | null;
  user_id: number | null;
  created: string;
}

export interface ReaderAccessTable {
  id: Generated<number>;
  project_id: number;
  email: string;
  expires_at: string | null;
  revoked_at: string | null;
  created: string;
  updated: string;
}

export interface AuditLogTable {
  id: Generated<number>;
  project_id: number;
  timestamp: string;
  scope: 'content' | 'users' | 'hosting' | 'security' | 'plan' | 'other';
  entity: string;
  entity_id: string;
  operation: 'INS' | 'UPD' | 'DEL' | 'ADD' | 'REM';
  message: string;
  /** JSON object */
  details: string;
  ip_address: string | null;
  user_label: string | null;
  api_key_label: string | null;
  /** the version the entry is about; null when it is about none or several (migration 0013) */
  version_id: number | null;
  /** 1 when the entry is about no version and holds nothing of one: keys of any scope see it */
  project_wide: Generated<number>;
}

export interface ChangelogsTable {
  id: Generated<number>;
  project_id: number;
  title: string;
  slug: string;
  created: string;
  updated: string;
}

/** One searchable entry: an H2 section of a page readers can see, or an operation of a published reference. */
export interface SearchEntriesTable {
  id: Generated<number>;
  project_id: number;
  /** null for a changelog post: posts belong to the project */
  version_id: number | null;
  documentation_id: number | null;
  page_id: number | null;
  reference_id: number | null;
  changelog_post_id: number | null;
  section_type: 'doc' | 'ref' | 'changelog';
  version_slug: string | null;
  /** the section's slug, or `ref` for a reference's operations */
  section: string;
  /** the page's slug, or the reference's */
  page: string;
  fragment: string;
  title: string;
  content: string;
  /** the entry's place within its page or reference */
  ordr: number;
}

/** A changelog's posts (N5/N6): Darkdown content, newest first. */
export interface ChangelogPostsTable {
  id: Generated<number>;
  changelog_id: number;
  title: string;
  slug: string;
  published: Bool;
  content: string;
  created: string;
  updated: string;
}

export interface Database {
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  users: UsersTable;
  versions: VersionsTable;
  documentation: DocumentationTable;
  categories: CategoriesTable;
  pages: PagesTable;
  page_history: PageHistoryTable;
  api_references: ApiReferencesTable;
  reference_revisions: ReferenceRevisionsTable;
  reader_access: ReaderAccessTable;
  audit_log: AuditLogTable;
  changelogs: ChangelogsTable;
  changelog_posts: ChangelogPostsTable;
  search_entries: SearchEntriesTable;
  idempotency_keys: IdempotencyKeysTable;
  link_scans: LinkScansTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_stamps: WebhookStampsTable;
  change_stamps: ChangeStampsTable;
  navigation_stamps: NavigationStampsTable;
  rendered_contents: RenderedContentsTable;
  former_slugs: FormerSlugsTable;
  feedback: FeedbackTable;
  reader_login_tokens: ReaderLoginTokensTable;
  reader_sessions: ReaderSessionsTable;
  mail_outbox: MailOutboxTable;
}
