import { createHash } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { AuditLogTable } from '../../db/schema.ts';
import type { AuditEntry } from './audit.entry.ts';
import { auditRepository } from './audit.repository.ts';

/**
 * What readers do on a private site, audited under `security` (site.md §6): a sign-in link asked
 * for, a session started, a link or token refused, a sign-out. No token is ever written; an address
 * someone typed into the login form, which may have no grant, is kept masked with a digest that
 * tells repeated requests apart.
 */
export type ReaderEvent =
  | { type: 'link_requested'; email: string; limited: boolean }
  | { type: 'session_started'; sessionKind: 'link' | 'jwt'; email: string; grantId: number | null }
  | { type: 'verify_failed'; via: 'link' | 'jwt'; reason: string; email: string | null }
  | { type: 'logout'; email: string };

/** `j***@example.com` and the first 16 hex digits of the address's SHA-256. */
export function maskedEmail(email: string): { masked: string; digest: string } {
  const at = email.lastIndexOf('@');
  const masked = at <= 0 ? '***' : `${email.slice(0, 1)}***${email.slice(at)}`;
  return { masked, digest: createHash('sha256').update(email).digest('hex').slice(0, 16) };
}

export function readerEntry(event: ReaderEvent): AuditEntry {
  switch (event.type) {
    case 'link_requested': {
      const { masked, digest } = maskedEmail(event.email);
      return {
        scope: 'security',
        entity: 'readerLogin',
        entityId: digest,
        operation: 'ADD',
        message: `Sign-in link requested for ${masked}`,
        details: { email: masked, emailSha256: digest, rateLimited: event.limited },
      };
    }
    case 'session_started':
      return {
        scope: 'security',
        entity: 'readerSession',
        entityId: event.grantId ?? event.email,
        operation: 'INS',
        message: `Reader session started for ${event.email} (${event.sessionKind === 'link' ? 'e-mail link' : 'JWT'})`,
        details: { email: event.email, via: event.sessionKind },
      };
    case 'verify_failed': {
      const who = event.email === null ? null : maskedEmail(event.email);
      return {
        scope: 'security',
        entity: 'readerLogin',
        entityId: who?.digest ?? '-',
        operation: 'REM',
        message: `Reader sign-in refused (${event.via}): ${event.reason}`,
        details: { via: event.via, reason: event.reason, ...(who ? { email: who.masked } : {}) },
      };
    }
    case 'logout':
      return {
        scope: 'security',
        entity: 'readerSession',
        entityId: event.email,
        operation: 'DEL',
        message: `Reader ${event.email} signed out`,
        details: { email: event.email },
      };
  }
}

/** The audit row of a reader's event on a project's site, from a client address. */
export function readerAuditRow(
  projectId: number,
  event: ReaderEvent,
  at: string,
  ipAddress: string | null,
): Insertable<AuditLogTable> {
  const entry = readerEntry(event);
  return {
    project_id: projectId,
    timestamp: at,
    scope: entry.scope,
    entity: entry.entity,
    entity_id: String(entry.entityId),
    operation: entry.operation,
    message: entry.message,
    details: JSON.stringify({ ...entry.details, source: 'site' }),
    ip_address: ipAddress,
    user_label: null,
    api_key_label: null,
    version_id: null,
    project_wide: 1,
  };
}

/** Writes an audit row (a reader's event, a setting changed outside the change events) in `db`'s transaction. */
export async function writeAuditRow(db: Executor, row: Insertable<AuditLogTable>): Promise<void> {
  await auditRepository.insert(db, row);
}
