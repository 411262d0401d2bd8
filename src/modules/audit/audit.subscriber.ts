import type { Actor } from '../../auth/actor.ts';
import type { ChangeSubscriber } from '../changes/change-events.ts';
import { eventVersions } from '../changes/event-versions.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { auditEntries } from './audit.events.ts';
import { auditRepository } from './audit.repository.ts';

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
  // Which keys may read the entries (decision 0019): those that see the one version they are about,
  // or every key when they hold nothing of any version; an entry naming several versions is left
  // to keys of every version.
  const versions = eventVersions(event);
  const about = {
    version_id: versions !== null && versions.length === 1 ? (versions[0] ?? null) : null,
    project_wide: versions === null ? 1 : 0,
  };
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
        ...about,
      })),
    ),
  );
};
