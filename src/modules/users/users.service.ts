import type { Kysely } from 'kysely';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { Database, UsersTable } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { ConflictError, InvalidFieldError, UniqueViolationError } from '../../errors.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { isEmail, normaliseEmail } from '../../shared/email.ts';
import { assertNotBlank } from '../../shared/text.ts';
import { presentUser, type User } from './users.presenter.ts';
import { usersRepository as repo } from './users.repository.ts';

export type Role = UsersTable['role'];
export const ROLES: readonly Role[] = ['ADMIN', 'PUBLISHER', 'WRITER', 'REVIEWER'];
export type { User };

export class UsersService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly reader: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
  ) {}

  async list(ctx: UseCaseContext): Promise<User[]> {
    const rows = await repo.list(ctx.transaction ?? this.reader, ctx.scope.project.id);
    return rows.map(presentUser);
  }

  /** A user of the scope's project; an e-mail address already there is a 409. */
  async create(ctx: UseCaseContext, input: { name: string; email: string; role: Role }): Promise<User> {
    assertNotBlank('name', input.name);
    if (!isEmail(input.email)) throw new InvalidFieldError('email', 'must be a valid e-mail address');
    if (!ROLES.includes(input.role))
      throw new InvalidFieldError('role', `must be one of ${ROLES.join(', ')}`);
    const email = normaliseEmail(input.email);
    const projectId = ctx.scope.project.id;
    return inTransaction(this.db, ctx, async (tx) => {
      let user: User;
      try {
        user = presentUser(
          await repo.insert(tx.transaction, {
            project_id: projectId,
            name: input.name,
            email,
            role: input.role,
            last_active_at: null,
            created: toStoredDate(this.clock.now()),
          }),
        );
      } catch (error) {
        if (error instanceof UniqueViolationError)
          throw new ConflictError(`A user with e-mail ${email} already exists.`);
        throw error;
      }
      await this.changes.record(tx, { type: 'user.created', projectId, user });
      return user;
    });
  }
}
