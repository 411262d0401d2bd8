import { UniqueViolationError } from '../errors.ts';

/**
 * Runs a write and turns the dialect's unique-constraint error into UniqueViolationError, so that no
 * dialect detail leaks above the repositories.
 */
export async function mapUnique<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const unique = asUniqueViolation(error);
    if (unique) throw unique;
    throw error;
  }
}

export function asUniqueViolation(error: unknown): UniqueViolationError | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  // PostgreSQL: SQLSTATE 23505. SQLite (better-sqlite3): SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY.
  if (e.code === '23505')
    return new UniqueViolationError(typeof e.constraint === 'string' ? e.constraint : null);
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new UniqueViolationError(typeof e.message === 'string' ? e.message : null);
  }
  return null;
}
