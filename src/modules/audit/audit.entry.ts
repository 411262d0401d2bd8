import type { AuditLogTable } from '../../db/schema.ts';

/** One row of the audit log as a change derives it, before who, when and where are added. */
export interface AuditEntry {
  scope: AuditLogTable['scope'];
  entity: string;
  entityId: number | string;
  operation: AuditLogTable['operation'];
  message: string;
  details?: Record<string, unknown>;
}
