import type { Static } from '@sinclair/typebox';
import { entityTag } from '../../shared/entity-tags.ts';
import { bool } from '../../db/executor.ts';
import { formatApiDate } from '../../shared/dates.ts';
import type { CategoryRow, DocumentationRow } from './documentation.repository.ts';
import type { DocumentationSchema } from './documentation.schemas.ts';

export type Documentation = Static<typeof DocumentationSchema>;

export function presentDocumentation(row: DocumentationRow): Documentation {
  return {
    id: row.id,
    title: row.title,
    published: bool(row.published),
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
    slug: row.slug,
    ordr: row.ordr,
  };
}

/** A category as change events carry it; its answer (CategorySchema) shows id, title and position. */
export interface Category {
  id: number;
  documentationId: number;
  title: string;
  position: number;
  created: string;
  updated: string;
}

export function presentCategory(row: CategoryRow): Category {
  return {
    id: row.id,
    documentationId: row.documentation_id,
    title: row.title,
    position: row.position,
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
  };
}

/** A section's entity tag: a digest of it as the API presents it. */
export const documentationTag = (documentation: Documentation): string =>
  entityTag('documentation', JSON.stringify(documentation));
