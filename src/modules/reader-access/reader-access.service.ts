import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/schema.ts';
import { BadRequestError, InvalidFieldError, NotFoundError } from '../../errors.ts';
import { parseApiDate, toStoredDate } from '../../shared/dates.ts';
import { isEmail, normaliseEmail } from '../../shared/email.ts';
import { retryOnUniqueViolation } from '../../shared/retry.ts';
import type { AuditRecorder } from '../audit/audit.recorder.ts';
import type { Actor, ChangeContext } from '../keys/actor.ts';
import { presentReaderAccess, type ReaderAccess } from './reader-access.presenter.ts';
import { readerAccessRepository as repo } from './reader-access.repository.ts';

export interface ReaderAccessGrantInput {
  email: string;
  /** `Y-m-d\TH:i:sP`; absent or null: never expires */
  expiresAt?: string | null;
}

// Field names carry the `body.` prefix, like the schema validator's details for the same request.
const EMAIL_FIELD = 'body.email';
const EXPIRES_FIELD = 'body.expiresAt';

export class ReaderAccessService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
  ) {}

  async list(actor: Actor): Promise<ReaderAccess[]> {
    const rows = await repo.list(this.db, actor.project.id);
    return rows.map(presentReaderAccess);
  }

  /** Creates a grant, or re-activates and updates the email's existing one (one grant per email). */
  async grant(actor: Actor, input: ReaderAccessGrantInput, ctx: ChangeContext): Promise<ReaderAccess> {
    if (actor.project.access !== 'invite') {
      throw new BadRequestError(
        'Reader access can only be granted in a project protected by e-mail invite; this project is public.',
      );
    }
    const email = validEmail(input.email);
    const now = this.clock.now();
    let expiresAt: string | null = null;
    if (input.expiresAt != null) {
      const at = parseApiDate(EXPIRES_FIELD, input.expiresAt);
      if (at <= now) throw new InvalidFieldError(EXPIRES_FIELD, 'must be in the future');
      expiresAt = toStoredDate(at);
    }
    const projectId = actor.project.id;
    // Two first grants of one email race to the unique (project, email) constraint; the loser's
    // transaction is aborted on PostgreSQL, so the whole transaction runs again and finds the winner's row.
    return retryOnUniqueViolation(() =>
      this.db.transaction().execute(async (trx) => {
        const stamp = toStoredDate(this.clock.now());
        const existing = await repo.findByEmail(trx, projectId, email);
        if (!existing) {
          const row = await repo.insert(trx, {
            project_id: projectId,
            email,
            expires_at: expiresAt,
            revoked_at: null,
            created: stamp,
            updated: stamp,
          });
          await this.audit.record(trx, ctx, {
            projectId,
            scope: 'security',
            entity: 'readerAccess',
            entityId: row.id,
            operation: 'INS',
            message: `Reader access granted to ${email}`,
            details: { email, expiresAt: presentReaderAccess(row).expiresAt },
          });
          return presentReaderAccess(row);
        }
        const row = await repo.update(trx, existing.id, {
          expires_at: expiresAt,
          revoked_at: null,
          updated: stamp,
        });
        const before = presentReaderAccess(existing);
        const after = presentReaderAccess(row);
        await this.audit.record(trx, ctx, {
          projectId,
          scope: 'security',
          entity: 'readerAccess',
          entityId: row.id,
          operation: 'UPD',
          message: `Reader access granted again to ${email}`,
          details: {
            email,
            before: { expiresAt: before.expiresAt, revoked: before.revoked },
            after: { expiresAt: after.expiresAt, revoked: after.revoked },
          },
        });
        return after;
      }),
    );
  }

  /** Revoking an already revoked grant answers it unchanged and writes nothing. */
  async revoke(actor: Actor, input: { email: string }, ctx: ChangeContext): Promise<ReaderAccess> {
    const email = validEmail(input.email);
    const projectId = actor.project.id;
    return this.db.transaction().execute(async (trx) => {
      const existing = await repo.findByEmail(trx, projectId, email);
      if (!existing) throw new NotFoundError(`No reader access found for ${email}.`);
      if (existing.revoked_at !== null) return presentReaderAccess(existing);
      const row = await repo.revoke(trx, existing.id, toStoredDate(this.clock.now()));
      if (!row) {
        // A concurrent revoke won between our read and our write: answer what it wrote.
        const current = await repo.findByEmail(trx, projectId, email);
        if (!current) throw new NotFoundError(`No reader access found for ${email}.`);
        return presentReaderAccess(current);
      }
      await this.audit.record(trx, ctx, {
        projectId,
        scope: 'security',
        entity: 'readerAccess',
        entityId: row.id,
        operation: 'DEL',
        message: `Reader access revoked for ${email}`,
        details: { email },
      });
      return presentReaderAccess(row);
    });
  }
}

function validEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (!isEmail(email)) throw new InvalidFieldError(EMAIL_FIELD, 'must be a valid e-mail address');
  return email;
}
