import type { Static } from '@sinclair/typebox';
import { bool } from '../../db/executor.ts';
import { formatApiDate } from '../../shared/dates.ts';
import type { AllDocumentationRow, AllPageRow, AllReferenceRow, AllVersionRow } from './all.repository.ts';
import type {
  AllDocumentationSchema,
  AllPageSchema,
  AllReferenceSchema,
  AllVersionSchema,
} from './all.schemas.ts';

export type AllPage = Static<typeof AllPageSchema>;
export type AllDocumentation = Static<typeof AllDocumentationSchema>;
export type AllReference = Static<typeof AllReferenceSchema>;
export type AllVersion = Static<typeof AllVersionSchema>;

export interface AllProject {
  page: Record<string, AllPage>;
  documentation: Record<string, AllDocumentation>;
  reference: Record<string, AllReference>;
  version: Record<string, AllVersion>;
}

export const emptyAllProject = (): AllProject => ({
  page: {},
  documentation: {},
  reference: {},
  version: {},
});

/** Rows → a dictionary keyed by id as a string, in id order (how JavaScript orders integer keys). */
export function byId<R extends { id: number }, T>(
  rows: readonly R[],
  present: (row: R) => T,
): Record<string, T> {
  const out: Record<string, T> = {};
  for (const row of rows) out[String(row.id)] = present(row);
  return out;
}

export const presentAllVersion = (r: AllVersionRow): AllVersion => ({
  name: r.name,
  slug: r.slug,
  published: bool(r.published),
  ordr: r.ordr,
});

export const presentAllDocumentation = (r: AllDocumentationRow): AllDocumentation => ({
  title: r.title,
  slug: r.slug,
  versionId: r.version_id,
  published: bool(r.published),
  ordr: r.ordr,
});

export const presentAllReference = (r: AllReferenceRow): AllReference => ({
  title: r.title,
  slug: r.slug,
  versionId: r.version_id,
  published: bool(r.published),
  ordr: r.ordr,
});

export const presentAllPage = (r: AllPageRow): AllPage => ({
  title: r.title,
  slug: r.slug,
  path: `${r.version_slug}/${r.documentation_slug}/${r.slug}`,
  documentationId: r.documentation_id,
  listed: bool(r.listed),
  updated: formatApiDate(r.updated),
});
