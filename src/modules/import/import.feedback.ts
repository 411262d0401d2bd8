import type { TransactionContext } from '../../auth/actor.ts';
import { parseApiDate } from '../../shared/dates.ts';
import { FEEDBACK_FILE } from '../export/export.feedback.ts';
import { MAX_FEEDBACK_MESSAGE } from '../feedback/feedback.schemas.ts';
import type { ArchivedFeedback, FeedbackService } from '../feedback/feedback.service.ts';
import type { ImportArchive } from './import.archive.ts';
import type { ImportWarning } from './import.plan.ts';

export { FEEDBACK_FILE };

/**
 * Reads a version folder's `feedback.json` (export.feedback.ts) back onto the pages just imported
 * into `versionId`, in the file's order. What cannot be taken — a file that is not the export's
 * JSON, an entry with a bad value, a page the version does not have (its slug was taken, it was
 * skipped) — becomes a warning; readers' feedback never refuses an archive.
 */
export async function importFeedback(
  ctx: TransactionContext,
  feedback: FeedbackService,
  archive: ImportArchive,
  folder: string,
  versionId: number,
  warnings: ImportWarning[],
): Promise<number> {
  const path = `${folder}/${FEEDBACK_FILE}`;
  const file = archive.files.find((f) => f.path === path);
  if (file === undefined) return 0;
  let listed: unknown;
  try {
    listed = (JSON.parse(await archive.readText(file)) as { feedback?: unknown }).feedback;
  } catch {
    listed = undefined;
  }
  if (!Array.isArray(listed)) {
    warnings.push({ file: path, message: 'Not the feedback an export writes: it was ignored.' });
    return 0;
  }
  const entries: ArchivedFeedback[] = [];
  for (const [index, value] of listed.entries()) {
    const entry = entryOf(value);
    if (entry === null)
      warnings.push({ file: path, message: `Entry ${index + 1} is not valid feedback: it was skipped.` });
    else entries.push(entry);
  }
  const missing = await feedback.fromArchive(ctx.transaction, ctx.scope.project.id, versionId, entries);
  for (const entry of missing) {
    warnings.push({
      file: path,
      message: `No page '${entry.section}/${entry.page}' in the version: its feedback was skipped.`,
    });
  }
  return entries.length - missing.length;
}

function entryOf(value: unknown): ArchivedFeedback | null {
  if (typeof value !== 'object' || value === null) return null;
  const { section, page, helpful, message, created } = value as Record<string, unknown>;
  if (typeof section !== 'string' || typeof page !== 'string' || typeof helpful !== 'boolean') return null;
  if (message !== null && (typeof message !== 'string' || [...message].length > MAX_FEEDBACK_MESSAGE))
    return null;
  if (typeof created !== 'string') return null;
  try {
    parseApiDate('created', created);
  } catch {
    return null;
  }
  return { section, page, helpful, message, created };
}
