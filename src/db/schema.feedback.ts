import type { Generated } from 'kysely';

/** A reader's answer to "Was this page helpful?" (migrations/0020-feedback.ts); no reader identity. */
export interface FeedbackTable {
  id: Generated<number>;
  project_id: number;
  version_id: number;
  page_id: number;
  /** 1 yes, 0 no */
  helpful: number;
  message: string | null;
  created: string;
}
