import type { Static } from '@sinclair/typebox';
import { formatApiDate } from '../../shared/dates.ts';
import type { UserRow } from './users.repository.ts';
import type { UserSchema } from './users.schemas.ts';

export type User = Static<typeof UserSchema>;

export function presentUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    lastActiveAt: formatApiDate(row.last_active_at),
  };
}
