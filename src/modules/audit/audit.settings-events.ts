import { createHash } from 'node:crypto';
import type { ChangeEvent, ProjectChange } from '../changes/change-events.ts';
import type { AuditEntry } from './audit.entry.ts';

/** The changes to a project's settings, its keys, users, readers and webhooks (not its content). */
const SETTINGS_TYPES = [
  'project.created',
  'project.updated',
  'api_key.created',
  'api_key.revoked',
  'user.created',
  'reader_access.granted',
  'reader_access.revoked',
  'webhook.created',
  'webhook.deleted',
] as const;

export type SettingsEvent = Extract<ChangeEvent, { type: (typeof SETTINGS_TYPES)[number] }>;

const SETTINGS = new Set<string>(SETTINGS_TYPES);

export const isSettingsEvent = (event: ChangeEvent): event is SettingsEvent => SETTINGS.has(event.type);

const PROJECT_FIELD_SCOPE = {
  name: 'other',
  plan: 'plan',
  access: 'security',
  basePath: 'hosting',
  host: 'hosting',
  // What every page of the project reads.
  variables: 'content',
  // The site's own settings are hosting settings like its host and base path (decision 0029).
  siteLogo: 'hosting',
  siteColor: 'hosting',
  siteCss: 'hosting',
  redirects: 'hosting',
} as const;

const HOSTING_FIELDS = ['host', 'basePath', 'siteLogo', 'siteColor', 'siteCss', 'redirects'] as const;

/** Settings whose text can be long (a stylesheet, a rules file, a logo's data: URL). */
const DIGESTED = new Set<ProjectChange['field']>(['siteLogo', 'siteCss', 'redirects']);

/**
 * A long setting's value as the audit log keeps it: its size and a digest, which tell two versions
 * apart without copying 64 KiB of CSS into every entry; a short one as it is.
 */
function logged(field: ProjectChange['field'], value: string | null): string | null {
  if (value === null || !DIGESTED.has(field) || value.length <= 200) return value;
  const digest = createHash('sha256').update(value).digest('hex').slice(0, 16);
  return `${Buffer.byteLength(value)} bytes, sha256 ${digest}…`;
}

/** The audit entries of a settings change: one, except a project update, with one per changed setting. */
export function settingsEntries(event: SettingsEvent): AuditEntry[] {
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
        // Hosting and site settings given at creation are audited where their changes are.
        ...HOSTING_FIELDS.flatMap((field) => {
          const value = event.project[field];
          if (value === null) return [];
          return [
            {
              scope: PROJECT_FIELD_SCOPE[field],
              entity: 'project',
              entityId: event.project.id,
              operation: 'INS' as const,
              message: `Project ${field} set`,
              details: { field, from: null, to: logged(field, value) },
            },
          ];
        }),
      ];
    case 'project.updated':
      // Each kind of change goes to its own scope, as the audit log's consumers filter by scope.
      return event.changes.map(({ field, from, to }) => ({
        scope: PROJECT_FIELD_SCOPE[field],
        entity: 'project',
        entityId: event.project.id,
        operation: 'UPD',
        message: `Project ${field} changed`,
        details: { field, from: logged(field, from), to: logged(field, to) },
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
  }
}
