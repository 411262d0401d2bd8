import type { Static } from '@sinclair/typebox';
import { formatApiDate } from '../../shared/dates.ts';
import type { ReferenceRow } from './references.repository.ts';
import type { ReferenceSchema } from './references.schemas.ts';

/** The Reference of the specification: exactly the fields of its schema. */
export type Reference = Static<typeof ReferenceSchema>;

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
