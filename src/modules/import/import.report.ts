import type { ImportWarning } from './import.plan.ts';

/** What an import made, as its answer and its `import.completed` event carry it. */
export interface ImportReport {
  versions: Array<{ id: number; name: string; slug: string }>;
  documentation: number;
  categories: number;
  pages: number;
  references: number;
  warnings: ImportWarning[];
}
