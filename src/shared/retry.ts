import { ConflictError, UniqueViolationError } from '../errors.ts';

/**
 * Runs a whole transaction again when it lost a race for a generated unique value (a slug): the
 * retry reads the slugs anew and picks the next free one. On PostgreSQL a failed insert aborts the
 * transaction, which is why the retry wraps the transaction rather than the insert.
 */
export async function retryOnUniqueViolation<T>(run: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof UniqueViolationError) || attempt >= attempts) throw error;
    }
  }
}

/** An explicit slug that is taken is the caller's conflict, reported as 409 naming it. */
export function slugConflict(kind: string, slug: string): ConflictError {
  return new ConflictError(`The slug '${slug}' is already used by another ${kind} here.`);
}
