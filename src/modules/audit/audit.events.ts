import type { Actor } from '../../auth/actor.ts';
import type { AuditLogTable } from '../../db/schema.ts';
import type { ChangeEvent } from '../../events/change-events.ts';
import type { ChangeSubscriber } from '../../events/change-recorder.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { auditRepository } from './audit.repository.ts';

export interface AuditEntry {
  scope: AuditLogTable['scope'];
  entity: string;
  entityId: number | string;
  operation: AuditLogTable['operation'];
  message: string;
  details?: Record<string, unknown>;
}

const PROJECT_FIELD_SCOPE = {
  name: 'other',
  plan: 'plan',
  access: 'security',
  basePath: 'hosting',
  host: 'hosting',
  // What every page of the project reads.
  variables: 'content',
} as const;

const content = (entity: string, entityId: number, operation: AuditEntry['operation']) =>
  ({ scope: 'content', entity, entityId, operation }) as const;

/** The audit entries of a change: one, except a project update, which has one per changed setting. */
export function auditEntries(event: ChangeEvent): AuditEntry[] {
  switch (event.type) {
    case 'project.created':
      return [
        {
          scope: 'other',
          entity: 'project',
          entityId: event.project.id,
          operation: 'INS',
          message: `Project '${event.project.name}' created`,
          details: { plan: event.project.plan, access: event.project.access },
        },
      ];
    case 'project.updated':
      // Each kind of change goes to its own scope, as the audit log's consumers filter by scope.
      return event.changes.map(({ field, from, to }) => ({
        scope: PROJECT_FIELD_SCOPE[field],
        entity: 'project',
        entityId: event.project.id,
        operation: 'UPD',
        message: `Project ${field} changed`,
        details: { field, from, to },
      }));
    case 'api_key.created':
      return [
        {
          scope: 'security',
          entity: 'apiKey',
          entityId: event.key.id,
          operation: 'INS',
          message: `API key '${event.key.name}' created`,
          details: {
            permissions: event.key.permissions,
            versions: event.key.versions,
            prefix: event.key.prefix,
          },
        },
      ];
    case 'api_key.revoked':
      return [
        {
          scope: 'security',
          entity: 'apiKey',
          entityId: event.key.id,
          operation: 'DEL',
          message: `API key '${event.key.name}' revoked`,
        },
      ];
    case 'user.created':
      return [
        {
          scope: 'users',
          entity: 'user',
          entityId: event.user.id,
          operation: 'INS',
          message: `User ${event.user.email} added as ${event.user.role}`,
          details: { name: event.user.name, role: event.user.role },
        },
      ];
    case 'version.created':
      return [
        {
          ...content('version', event.version.id, 'INS'),
          message: `Version '${event.version.name}' created`,
          details: { slug: event.version.slug, published: event.version.published },
        },
      ];
    case 'version.updated': {
      const { name, slug, published } = event.version;
      const before = event.before;
      return [
        {
          ...content('version', event.version.id, 'UPD'),
          message: `Version '${name}' updated`,
          details: {
            before: { name: before.name, slug: before.slug, published: before.published },
            after: { name, slug, published },
          },
        },
      ];
    }
    case 'version.deleted':
      return [
        {
          ...content('version', event.version.id, 'DEL'),
          message: `Version '${event.version.name}' deleted`,
          details: { slug: event.version.slug },
        },
      ];
    case 'documentation.updated': {
      const pick = ({ title, slug, published, ordr }: typeof event.documentation) => ({
        title,
        slug,
        published,
        ordr,
      });
      return [
        {
          ...content('documentation', event.documentation.id, 'UPD'),
          message: `Documentation '${event.documentation.title}' updated`,
          details: {
            versionId: event.versionId,
            before: pick(event.before),
            after: pick(event.documentation),
          },
        },
      ];
    }
    case 'documentation.deleted':
      return [
        {
          ...content('documentation', event.documentation.id, 'DEL'),
          message: `Documentation '${event.documentation.title}' deleted`,
          details: { versionId: event.versionId, slug: event.documentation.slug, pages: event.pages },
        },
      ];
    case 'documentation.created':
      return [
        {
          ...content('documentation', event.documentation.id, 'INS'),
          message: `Documentation '${event.documentation.title}' created`,
          details: {
            versionId: event.versionId,
            slug: event.documentation.slug,
            published: event.documentation.published,
          },
        },
      ];
    case 'category.created':
      return [
        {
          ...content('category', event.category.id, 'INS'),
          message: `Category '${event.category.title}' created`,
          details: { documentationId: event.category.documentationId },
        },
      ];
    case 'page.created':
      return [
        {
          ...content('page', event.page.id, 'INS'),
          message: `Page '${event.page.title}' created`,
          details: {
            documentationId: event.documentationId,
            categoryId: event.categoryId,
            position: event.position,
            slug: event.page.slug,
            historyMessage: event.message,
          },
        },
      ];
    case 'page.updated':
      return [
        {
          ...content('page', event.page.id, 'UPD'),
          message: `Page '${event.page.title}' updated`,
          details: {
            before: event.before,
            after: { title: event.page.title, slug: event.page.slug },
            contentChanged: event.contentChanged,
            ...(event.moved !== undefined ? { moved: event.moved } : {}),
            ...(event.listed !== undefined ? { listed: event.listed } : {}),
            historyMessage: event.message,
          },
        },
      ];
    case 'page.published':
      return [
        {
          ...content('page', event.page.id, 'UPD'),
          message: `Page '${event.page.title}' published`,
          details: { wasListed: event.wasListed, historyMessage: event.message },
        },
      ];
    case 'reference.uploaded': {
      const state = event.published ? 'published' : 'draft written';
      return [
        {
          ...content('reference', event.reference.id, event.created ? 'INS' : 'UPD'),
          message: `Reference '${event.reference.title}' ${event.created ? 'created' : 'updated'} (${state})`,
          details: {
            versionId: event.versionId,
            slug: event.reference.slug,
            publish: event.published,
            format: event.format,
          },
        },
      ];
    }
    case 'reference.published':
      return [
        {
          ...content('reference', event.reference.id, 'UPD'),
          message: `Reference '${event.reference.title}' published`,
          details: { versionId: event.versionId, format: event.format },
        },
      ];
    case 'reader_access.granted': {
      const { email, expiresAt, revoked } = event.access;
      if (event.before === null) {
        return [
          {
            scope: 'security',
            entity: 'readerAccess',
            entityId: event.accessId,
            operation: 'INS',
            message: `Reader access granted to ${email}`,
            details: { email, expiresAt },
          },
        ];
      }
      return [
        {
          scope: 'security',
          entity: 'readerAccess',
          entityId: event.accessId,
          operation: 'UPD',
          message: `Reader access granted again to ${email}`,
          details: {
            email,
            before: { expiresAt: event.before.expiresAt, revoked: event.before.revoked },
            after: { expiresAt, revoked },
          },
        },
      ];
    }
    case 'reader_access.revoked':
      return [
        {
          scope: 'security',
          entity: 'readerAccess',
          entityId: event.accessId,
          operation: 'DEL',
          message: `Reader access revoked for ${event.access.email}`,
          details: { email: event.access.email },
        },
      ];
    case 'page.deleted':
      return [
        {
          ...content('page', event.page.id, 'DEL'),
          message: `Page '${event.page.title}' deleted`,
          details: { slug: event.page.slug, pageIds: event.pageIds },
        },
      ];
    case 'page.restored':
      return [
        {
          ...content('page', event.page.id, 'UPD'),
          message: `Page '${event.page.title}' restored`,
          details: { slug: event.page.slug, pageIds: event.pageIds, slugTaken: event.slugTaken },
        },
      ];
    case 'version.cloned':
      return [
        {
          ...content('version', event.version.id, 'INS'),
          message: `Version '${event.version.name}' cloned from '${event.source.name}'`,
          details: { slug: event.version.slug, sourceId: event.source.id, copied: event.copied },
        },
      ];
    case 'changelog_post.created':
      return [
        {
          ...content('changelogPost', event.post.id, 'INS'),
          message: `Changelog post '${event.post.title}' created`,
          details: { changelogId: event.changelogId, slug: event.post.slug, published: event.post.published },
        },
      ];
    case 'changelog.created':
      return [
        {
          ...content('changelog', event.changelog.id, 'INS'),
          message: `Changelog '${event.changelog.title}' created`,
          details: { slug: event.changelog.slug },
        },
      ];
    case 'webhook.created':
      // Where the project's changes will be sent is a security matter; the secret is never logged.
      return [
        {
          scope: 'security',
          entity: 'webhook',
          entityId: event.webhook.id,
          operation: 'INS',
          message: `Webhook to ${event.webhook.url} created`,
          details: { url: event.webhook.url, events: event.webhook.events },
        },
      ];
    case 'webhook.deleted':
      return [
        {
          scope: 'security',
          entity: 'webhook',
          entityId: event.webhook.id,
          operation: 'DEL',
          message: `Webhook to ${event.webhook.url} deleted`,
          details: { url: event.webhook.url },
        },
      ];
    case 'import.completed':
      // Every version, section, page and reference the import wrote has its own entry already.
      return [];
  }
}

const SOURCE = { key: 'api', cli: 'cli', system: 'system' } as const;

function actorLabels(actor: Actor): { user_label: string | null; api_key_label: string | null } {
  if (actor.kind !== 'key') return { user_label: null, api_key_label: null };
  return {
    user_label: actor.user ? `${actor.user.id} ${actor.user.email}` : null,
    api_key_label: `${actor.keyId} ${actor.keyName}`,
  };
}

/** The audit log follows every change, written in the change's own transaction. */
export const auditSubscriber: ChangeSubscriber = async (trx, { event, actor, ipAddress, at }, writes) => {
  const source: Record<string, unknown> = { source: SOURCE[actor.kind] };
  if (actor.kind === 'system') source.job = actor.job;
  const entries = auditEntries(event);
  if (entries.length === 0) return;
  const timestamp = toStoredDate(at);
  const labels = actorLabels(actor);
  // One insert of every entry, sent with the change's other writes.
  writes.add(
    auditRepository.insertion(
      trx,
      entries.map((entry) => ({
        project_id: event.projectId,
        timestamp,
        scope: entry.scope,
        entity: entry.entity,
        entity_id: String(entry.entityId),
        operation: entry.operation,
        message: entry.message,
        details: JSON.stringify({ ...(entry.details ?? {}), ...source }),
        ip_address: ipAddress,
        ...labels,
      })),
    ),
  );
};
