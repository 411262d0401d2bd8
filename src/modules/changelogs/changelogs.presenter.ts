import { formatApiDate } from '../../shared/dates.ts';
import type { ChangelogRow } from './changelogs.repository.ts';

export interface Changelog {
  id: number;
  projectId: number;
  title: string;
  slug: string;
  created: string;
  updated: string;
}

export function presentChangelog(row: ChangelogRow): Changelog {
  return {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    slug: row.slug,
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
  };
}
