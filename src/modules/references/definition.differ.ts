import { diffStoredDefinitions } from '../../openapi/definition-diff.ts';
import type { ChangeReport } from '../../openapi/definition-diff.types.ts';
import type { WorkerPool } from '../../workers/pool.ts';
import { unavailableIfTaskFails } from '../../workers/task-unavailable.ts';
import type { DefinitionSource } from './references.repository.ts';

/**
 * Two definitions of this many characters together or more are compared in a worker thread: parsing
 * alone takes milliseconds per hundred kilobytes of JSON (and far longer of YAML), which the event
 * loop cannot spare; a smaller pair costs it less than the trip to a thread would.
 */
export const WORKER_DIFF_CHARS = 64 * 1024;

/** Two texts read alike (both strings, or both bytes) compared; false for one of each. */
export function sameText(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** The change report between two stored definitions (extensions.md §8), here or in a thread. */
export class DefinitionDiffer {
  constructor(private readonly workers: WorkerPool) {}

  async diff(from: DefinitionSource, to: DefinitionSource): Promise<ChangeReport> {
    // The same file uploaded again: nothing to parse.
    if (from.format === to.format && sameText(from.text, to.text)) return { breaking: [], nonBreaking: [] };
    if (from.text.length + to.text.length < WORKER_DIFF_CHARS) return diffStoredDefinitions(from, to);
    const { report } = await unavailableIfTaskFails('The change report could not be made', () =>
      this.workers.run({ kind: 'diffDefinitions', from, to }),
    );
    return report;
  }
}
