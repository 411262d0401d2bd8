import type { Executor } from '../../db/executor.ts';
import type { AuditLogTable } from '../../db/schema.ts';
import type { Clock } from '../../clock.ts';
import { toStoredDate } from '../../shared/dates.ts';
import type { ChangeContext } from '../keys/actor.ts';

export interface AuditEntryInput {
  projectId: number;
  scope: AuditLogTable['scope'];
  entity: string;
  entityId: number | string;
  operation: AuditLogTable['operation'];
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Writes one audit entry on the executor it is given, which is the transaction of the change: the
 * entry and the change commit or roll back together.
 */
export class AuditRecorder {
  constructor(private readonly clock: Clock) {}

  async record(trx: Executor, ctx: ChangeContext, entry: AuditEntryInput): Promise<void> {
    const actor = ctx.actor;
    await trx
      .insertInto('audit_log')
      .values({
        project_id: entry.projectId,
        timestamp: toStoredDate(this.clock.now()),
        scope: entry.scope,
        entity: entry.entity,
        entity_id: String(entry.entityId),
        operation: entry.operation,
        message: entry.message,
        details: JSON.stringify({ ...(entry.details ?? {}), source: actor ? 'api' : 'cli' }),
        ip_address: ctx.ipAddress,
        user_label: actor?.user ? `${actor.user.id} ${actor.user.email}` : null,
        api_key_label: actor ? `${actor.keyId} ${actor.keyName}` : null,
      })
      .execute();
  }
}
