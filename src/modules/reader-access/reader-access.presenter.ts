import { formatApiDate } from '../../shared/dates.ts';
import type { ReaderAccessRow } from './reader-access.repository.ts';

export interface ReaderAccess {
  email: string;
  expiresAt: string | null;
  created: string;
  revoked: string | null;
}

export function presentReaderAccess(row: ReaderAccessRow): ReaderAccess {
  return {
    email: row.email,
    expiresAt: formatApiDate(row.expires_at),
    created: formatApiDate(row.created),
    revoked: formatApiDate(row.revoked_at),
  };
}
