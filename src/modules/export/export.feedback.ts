import type { Executor } from '../../db/executor.ts';
import type { FeedbackService } from '../feedback/feedback.service.ts';

/** A version's readers' feedback in its export folder, beside the sections (decision 0031). */
export const FEEDBACK_FILE = 'feedback.json';

/**
 * Writes `<version folder>/feedback.json` when the version's live pages have feedback: `{ feedback:
 * [{section, page, helpful, message, created}] }`, oldest first, each page named by its section's and
 * its own slug (ids change on import). Nothing is written for a version without feedback.
 */
export async function exportFeedback(
  db: Executor,
  feedback: FeedbackService,
  add: (name: string, bytes: Buffer) => Promise<void>,
  folder: string,
  versionId: number,
): Promise<number> {
  const entries = await feedback.forArchive(db, versionId);
  if (entries.length === 0) return 0;
  await add(
    `${folder}/${FEEDBACK_FILE}`,
    Buffer.from(`${JSON.stringify({ feedback: entries }, null, 2)}\n`, 'utf8'),
  );
  return entries.length;
}
