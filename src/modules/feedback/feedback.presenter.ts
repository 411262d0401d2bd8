import type { Static } from '@sinclair/typebox';
import { bool } from '../../db/executor.ts';
import { formatApiDate } from '../../shared/dates.ts';
import type { FeedbackRow } from './feedback.repository.ts';
import type { FeedbackSchema } from './feedback.schemas.ts';

export function presentFeedback(row: FeedbackRow): Static<typeof FeedbackSchema> {
  return {
    id: Number(row.id),
    pageId: Number(row.page_id),
    versionId: Number(row.version_id),
    helpful: bool(row.helpful),
    message: row.message,
    created: formatApiDate(row.created),
  };
}
