import type { Static } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { AuditLogTable } from '../../db/schema.ts';
import { formatApiDate } from '../../shared/dates.ts';
import type { AuditEntrySchema } from './audit.schemas.ts';

export function presentAuditEntry(row: Selectable<AuditLogTable>): Static<typeof AuditEntrySchema> {
  return {
    id: row.id,
    timestamp: formatApiDate(row.timestamp),
    scope: row.scope,
    entity: row.entity,
    entityId: row.entity_id,
    operation: row.operation,
    message: row.message,
    details: JSON.parse(row.details) as Record<string, unknown>,
    ipAddress: row.ip_address,
    user: row.user_label,
    apiKey: row.api_key_label,
  };
}
