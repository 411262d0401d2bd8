import { formatApiDate } from '../../shared/dates.ts';
import type { ReferenceRow } from './references.repository.ts';

/** The Reference of the specification: exactly these fields. */
export interface Reference {
  id: number;
  title: string;
  created: string;
  updated: string;
  slug: string;
  ordr: number;
}

export function presentReference(row: ReferenceRow): Reference {
  return {
    id: row.id,
    title: row.title,
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
    slug: row.slug,
    ordr: row.ordr,
  };
}
