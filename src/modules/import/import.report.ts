import type { Static } from '@sinclair/typebox';
import type { ImportReportSchema } from './import.schemas.ts';

/** What an import made, as its answer and its `import.completed` event carry it. */
export type ImportReport = Static<typeof ImportReportSchema>;
