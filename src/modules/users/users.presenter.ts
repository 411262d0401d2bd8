import { formatApiDate } from '../../shared/dates.ts';
import type { UserRow } from './users.repository.ts';

export interface User {
  id: number;
  name: string;
  email: string;
  role: UserRow['role'];
  lastActiveAt: string | null;
}

export function presentUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    lastActiveAt: formatApiDate(row.last_active_at),
  };
}
