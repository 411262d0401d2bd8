import type { Static } from '@sinclair/typebox';
import { formatApiDate } from '../../shared/dates.ts';
import type { ReaderAccessRow } from './reader-access.repository.ts';
import type { ReaderAccessSchema } from './reader-access.schemas.ts';

export type ReaderAccess = Static<typeof ReaderAccessSchema>;

export function presentReaderAccess(row: ReaderAccessRow): ReaderAccess {
  return {
    email: row.email,
    expiresAt: formatApiDate(row.expires_at),
    created: formatApiDate(row.created),
    revoked: formatApiDate(row.revoked_at),
  };
}
