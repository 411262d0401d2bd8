import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database, UsersTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';
import { ConflictError, InvalidFieldError, NotFoundError, UniqueViolationError } from '../../errors.ts';
import { formatApiDate, toStoredDate } from '../../shared/dates.ts';
import { isEmail, normaliseEmail } from '../../shared/email.ts';
import type { AuditRecorder } from '../audit/audit.recorder.ts';
import type { ChangeContext } from '../keys/actor.ts';
import { assertNotBlank } from '../../shared/text.ts';

export type Role = UsersTable['role'];
export const ROLES: readonly Role[] = ['ADMIN', 'PUBLISHER', 'WRITER', 'REVIEWER'];

export interface User {
  id: number;
  name: string;
  email: string;
  role: Role;
  lastActiveAt: string | null;
}

export class UsersService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
  ) {}

  async list(projectId: number): Promise<User[]> {
    const rows = await this.db
      .selectFrom('users')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    return rows.map(present);
  }

  async create(
    input: { projectId: number; name: string; email: string; role: Role },
    ctx: ChangeContext,
  ): Promise<User> {
    assertNotBlank('name', input.name);
    if (!isEmail(input.email)) throw new InvalidFieldError('email', 'must be a valid e-mail address');
    if (!ROLES.includes(input.role))
      throw new InvalidFieldError('role', `must be one of ${ROLES.join(', ')}`);
    const email = normaliseEmail(input.email);
    try {
      return await this.db.transaction().execute(async (trx) => {
        const project = await trx
          .selectFrom('projects')
          .select('id')
          .where('id', '=', input.projectId)
          .executeTakeFirst();
        if (!project) throw new NotFoundError(`Project ${input.projectId} not found.`);
        const row = await mapUnique(() =>
          trx
            .insertInto('users')
            .values({
              project_id: input.projectId,
              name: input.name,
              email,
              role: input.role,
              last_active_at: null,
              created: toStoredDate(this.clock.now()),
            })
            .returningAll()
            .executeTakeFirstOrThrow(),
        );
        await this.audit.record(trx, ctx, {
          projectId: input.projectId,
          scope: 'users',
          entity: 'user',
          entityId: row.id,
          operation: 'INS',
          message: `User ${row.email} added as ${row.role}`,
          details: { name: row.name, role: row.role },
        });
        return present(row);
      });
    } catch (error) {
      if (error instanceof UniqueViolationError)
        throw new ConflictError(`A user with e-mail ${email} already exists.`);
      throw error;
    }
  }
}

function present(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    lastActiveAt: formatApiDate(row.last_active_at),
  };
}
