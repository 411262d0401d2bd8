import type { ChangeEvent } from '../changes/change-events.ts';
import type { AuditEntry } from './audit.entry.ts';
import { isSettingsEvent, settingsEntries, type SettingsEvent } from './audit.settings-events.ts';

const content = (entity: string, entityId: number, operation: AuditEntry['operation']) =>
  ({ scope: 'content', entity, entityId, operation }) as const;

/**
 * The audit entries of a change: one, except a project update, which has one per changed setting.
 * Settings changes are mapped in audit.settings-events.ts, content changes here.
 */
export function auditEntries(event: ChangeEvent): AuditEntry[] {
  return isSettingsEvent(event) ? settingsEntries(event) : contentEntries(event);
}

function contentEntries(event: Exclude<ChangeEvent, SettingsEvent>): AuditEntry[] {
  switch (event.type) {
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
    case 'import.completed':
      // Every version, section, page and reference the import wrote has its own entry already.
      return [];
  }
}
