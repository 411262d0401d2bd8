import type { Kysely } from 'kysely';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { writeAuditRow } from '../audit/audit.reader-events.ts';
import type { SecretBox } from '../webhooks/webhook-secrets.ts';
import { jwtKeyDigest, storedJwtKey } from './reader-jwt-key.ts';
import { readerLoginRepository as repo } from './reader-login.repository.ts';

/**
 * Writes the key of a project's own login (ReaderLoginService.setJwtKey) and its audit entry in one
 * transaction; the entry names the key's algorithm and a digest, never the key.
 */
export async function saveJwtKey(
  db: Kysely<Database>,
  clock: Clock,
  ctx: UseCaseContext,
  file: Buffer | null,
  sealer: () => SecretBox,
): Promise<void> {
  const stored = file === null ? null : storedJwtKey(file, sealer);
  const projectId = ctx.scope.project.id;
  await inTransaction(db, ctx, async (tx) => {
    const before = await repo.jwtKey(tx.transaction, projectId);
    const at = toStoredDate(clock.now());
    await repo.setJwtKey(tx.transaction, projectId, stored, at);
    const describe = (value: string | null) =>
      value === null
        ? null
        : `${value.slice(0, value.indexOf(':'))} key, sha256 ${jwtKeyDigest(value).slice(0, 16)}…`;
    await writeAuditRow(tx.transaction, {
      project_id: projectId,
      timestamp: at,
      scope: 'security',
      entity: 'project',
      entity_id: String(projectId),
      operation: 'UPD',
      message: 'Project readerJwtKey changed',
      details: JSON.stringify({
        field: 'readerJwtKey',
        from: describe(before),
        to: describe(stored),
        source: ctx.actor.kind,
      }),
      ip_address: ctx.ipAddress,
      user_label: null,
      api_key_label: null,
      version_id: null,
      project_wide: 1,
    });
  });
}
