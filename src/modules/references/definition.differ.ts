import { diffStoredDefinitions } from '../../openapi/definition-diff.ts';
import type { ChangeReport } from '../../openapi/definition-diff.types.ts';
import type { WorkerPool } from '../../workers/pool.ts';
import { unavailableIfTaskFails } from '../../workers/task-unavailable.ts';
import type { DefinitionText } from './references.repository.ts';

/**
 * Two definitions of this many characters together or more are compared in a worker thread: parsing
 * alone takes milliseconds per hundred kilobytes of JSON (and far longer of YAML), which the event
 * loop cannot spare; a smaller pair costs it less than the trip to a thread would.
 */
export const WORKER_DIFF_CHARS = 64 * 1024;

/** The change report between two stored definitions (extensions.md §8), here or in a thread. */
export class DefinitionDiffer {
  constructor(private readonly workers: WorkerPool) {}

  async diff(from: DefinitionText, to: DefinitionText): Promise<ChangeReport> {
    // The same file uploaded again: nothing to parse.
    if (from.format === to.format && from.text === to.text) return { breaking: [], nonBreaking: [] };
    if (from.text.length + to.text.length < WORKER_DIFF_CHARS) return diffStoredDefinitions(from, to);
    const { report } = await unavailableIfTaskFails('The change report could not be made', () =>
      this.workers.run({ kind: 'diffDefinitions', from, to }),
    );
    return report;
  }
}
