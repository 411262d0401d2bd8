import type { KeyChange } from '../../auth/keys.service.ts';
import type {
  ChangeRecorder as Recorder,
  ChangeSubscriber as Subscriber,
  CommittedSubscriber as AfterCommit,
} from '../../events/change-recorder.ts';
import type { Changelog, ChangelogPost } from '../changelogs/changelogs.presenter.ts';
import type { Category, Documentation } from '../documentation/documentation.presenter.ts';
import type { ImportReport } from '../import/import.report.ts';
import type { Page } from '../pages/pages.presenter.ts';
import type { ProjectRecord } from '../projects/projects.presenter.ts';
import type { ReaderAccess } from '../reader-access/reader-access.presenter.ts';
import type { Reference } from '../references/references.presenter.ts';
import type { User } from '../users/users.presenter.ts';
import type { Version } from '../versions/versions.presenter.ts';
import type { Webhook } from '../webhooks/webhooks.presenter.ts';

/** One setting of a project that a change moved, for the audit scope it belongs to. */
export interface ProjectChange {
  field:
    | 'name'
    | 'plan'
    | 'access'
    | 'basePath'
    | 'host'
    | 'variables'
    | 'siteLogo'
    | 'siteColor'
    | 'siteCss'
    | 'redirects';
  from: string | null;
  to: string | null;
}

/**
 * Every change Quire makes, one member per kind. Each carries the project it happened in and the
 * resource as the API presents it after the change, plus what only the change itself knows (what it
 * was before, the history message). The audit log, and whatever else follows changes, derive their
 * rows from these and nothing else. The list is documented in docs/decisions/0007-seams.md.
 */
export type ChangeEvent =
  | { type: 'project.created'; projectId: number; project: ProjectRecord }
  | { type: 'project.updated'; projectId: number; project: ProjectRecord; changes: ProjectChange[] }
  /** the key use cases below the modules record these (src/auth/keys.service.ts) */
  | KeyChange
  | { type: 'user.created'; projectId: number; user: User }
  | { type: 'version.created'; projectId: number; version: Version }
  | { type: 'version.updated'; projectId: number; version: Version; before: Version }
  | { type: 'version.deleted'; projectId: number; version: Version }
  | {
      type: 'version.cloned';
      projectId: number;
      version: Version;
      source: Version;
      copied: { documentation: number; categories: number; pages: number; references: number };
    }
  | { type: 'documentation.created'; projectId: number; versionId: number; documentation: Documentation }
  | {
      type: 'documentation.updated';
      projectId: number;
      versionId: number;
      documentation: Documentation;
      before: Documentation;
    }
  | {
      type: 'documentation.deleted';
      projectId: number;
      versionId: number;
      documentation: Documentation;
      /** the section's pages deleted with it (`cascade=true`) */
      pages: number;
    }
  | { type: 'category.created'; projectId: number; versionId: number; category: Category }
  | {
      type: 'page.created';
      projectId: number;
      versionId: number;
      page: Page;
      documentationId: number;
      categoryId: number | null;
      position: number;
      message: string;
    }
  | {
      type: 'page.updated';
      projectId: number;
      versionId: number;
      page: Page;
      before: { title: string; slug: string };
      contentChanged: boolean;
      message: string;
      /** set when the page was moved: its category and parent page afterwards */
      moved?: { categoryId: number | null; parentId: number | null };
      /** set when `listed` changed: the new value */
      listed?: boolean;
    }
  | {
      type: 'page.published';
      projectId: number;
      versionId: number;
      page: Page;
      wasListed: boolean;
      message: string;
    }
  | {
      type: 'page.deleted';
      projectId: number;
      versionId: number;
      /** the page as it was before it went */
      page: Page;
      /** the page and every sub-page deleted with it */
      pageIds: number[];
    }
  | {
      type: 'page.restored';
      projectId: number;
      versionId: number;
      page: Page;
      /** the page and the sub-pages that went with it and came back with it */
      pageIds: number[];
      /** the slug it had when deleted, when another page had taken it meanwhile */
      slugTaken: string | null;
    }
  | {
      type: 'reference.uploaded';
      projectId: number;
      versionId: number;
      reference: Reference;
      created: boolean;
      published: boolean;
      format: 'json' | 'yaml';
    }
  | {
      type: 'reference.published';
      projectId: number;
      versionId: number;
      reference: Reference;
      format: 'json' | 'yaml' | null;
    }
  | {
      type: 'reader_access.granted';
      projectId: number;
      accessId: number;
      access: ReaderAccess;
      /** the grant as it was when the email had one already; null for a first grant */
      before: ReaderAccess | null;
    }
  | { type: 'reader_access.revoked'; projectId: number; accessId: number; access: ReaderAccess }
  | { type: 'changelog.created'; projectId: number; changelog: Changelog }
  | { type: 'changelog_post.created'; projectId: number; changelogId: number; post: ChangelogPost }
  /** at the end of an import's transaction, after the changes it made one by one */
  | { type: 'import.completed'; projectId: number; report: ImportReport }
  | { type: 'webhook.created'; projectId: number; webhook: Webhook }
  | { type: 'webhook.deleted'; projectId: number; webhook: Webhook };

export type ChangeType = ChangeEvent['type'];

/** The recorder (src/events/) over these events, as the services and subscribers name it. */
export type ChangeRecorder = Recorder<ChangeEvent>;
export type ChangeSubscriber = Subscriber<ChangeEvent>;
export type CommittedSubscriber = AfterCommit<ChangeEvent>;
