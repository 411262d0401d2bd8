import type { Kysely, Transaction } from 'kysely';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { BadRequestError, InvalidFieldError, NotFoundError } from '../../errors.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { parseApiDate, toStoredDate } from '../../shared/dates.ts';
import { isEmail, normaliseEmail } from '../../shared/email.ts';
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

/** Queues the invitation mail of a grant, in the grant's transaction (site.md §6). */
export type Invite = (
  trx: Transaction<Database>,
  projectId: number,
  email: string,
  siteRoot: string,
) => Promise<void>;

export class ReaderAccessService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly reader: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    private readonly invite: Invite | null = null,
  ) {}

  async list(ctx: UseCaseContext): Promise<ReaderAccess[]> {
    const rows = await repo.list(ctx.transaction ?? this.reader, ctx.scope.project.id);
    return rows.map(presentReaderAccess);
  }

  /**
   * Creates a grant, or re-activates and updates the email's existing one (one grant per email), and
   * sends the address an invitation with a sign-in link to the site at `siteRoot`, when given.
   */
  async grant(ctx: UseCaseContext, input: ReaderAccessGrantInput, siteRoot?: string): Promise<ReaderAccess> {
    if (ctx.scope.project.access !== 'invite') {
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
    const projectId = ctx.scope.project.id;
    // Two first grants of one email race to the unique (project, email) constraint; the loser's
    // work runs again (inTransaction) and finds the winner's row.
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const stamp = toStoredDate(this.clock.now());
      const existing = await repo.findByEmail(trx, projectId, email);
      const row = existing
        ? await repo.update(trx, existing.id, { expires_at: expiresAt, revoked_at: null, updated: stamp })
        : await repo.insert(trx, {
            project_id: projectId,
            email,
            expires_at: expiresAt,
            revoked_at: null,
            created: stamp,
            updated: stamp,
          });
      const access = presentReaderAccess(row);
      await this.changes.record(tx, {
        type: 'reader_access.granted',
        projectId,
        accessId: row.id,
        access,
        before: existing ? presentReaderAccess(existing) : null,
      });
      if (this.invite !== null && siteRoot !== undefined) await this.invite(trx, projectId, email, siteRoot);
      return access;
    });
  }

  /** Revoking an already revoked grant answers it unchanged and writes nothing. */
  async revoke(ctx: UseCaseContext, input: { email: string }): Promise<ReaderAccess> {
    const email = validEmail(input.email);
    const projectId = ctx.scope.project.id;
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
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
      const access = presentReaderAccess(row);
      await this.changes.record(tx, { type: 'reader_access.revoked', projectId, accessId: row.id, access });
      return access;
    });
  }
}

function validEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (!isEmail(email)) throw new InvalidFieldError(EMAIL_FIELD, 'must be a valid e-mail address');
  return email;
}
