import { ServiceUnavailableError } from '../errors.ts';
import { TaskFailedError } from './pool.ts';

/** What a client is told to wait before it tries again. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Runs `task`, whose worker task may fail for reasons that say nothing of its input: out of time or
 * memory, a thread that died, no thread free in time. Such a failure is a 503 (the same request may
 * succeed later), its message `failed` ("The page could not be rendered") and the pool's reason.
 * Any other error is the task's own and passes as it is.
 */
export async function unavailableIfTaskFails<T>(failed: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (!(error instanceof TaskFailedError)) throw error;
    throw new ServiceUnavailableError(`${failed}: it ${error.message}.`, RETRY_AFTER_SECONDS);
  }
}
