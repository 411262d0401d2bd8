import { BadRequestError } from '../errors.ts';

/**
 * Opaque cursors of newest-first lists: the id of the last row given. Rows come by descending id, so
 * a cursor stays valid while new rows arrive.
 */
export const encodeCursor = (id: number): string => Buffer.from(`before:${id}`).toString('base64url');

export function decodeCursor(cursor: string): number {
  const match = /^before:(\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  // Ids are 32-bit on PostgreSQL: a larger one was never given, and the database would refuse it.
  if (!match || Number(match[1]) > 2_147_483_647)
    throw new BadRequestError('query.cursor is not a cursor this API gave.', [
      { field: 'query.cursor', message: 'is not a cursor this API gave' },
    ]);
  return Number(match[1]);
}

/** Opaque cursors of oldest-first lists: the id of the last row given, the next page after it. */
export const encodeAfterCursor = (id: number): string => Buffer.from(`after:${id}`).toString('base64url');

export function decodeAfterCursor(cursor: string): number {
  const match = /^after:(\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || Number(match[1]) > 2_147_483_647)
    throw new BadRequestError('query.cursor is not a cursor this API gave.', [
      { field: 'query.cursor', message: 'is not a cursor this API gave' },
    ]);
  return Number(match[1]);
}
