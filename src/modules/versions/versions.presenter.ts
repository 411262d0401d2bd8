import type { Static } from '@sinclair/typebox';
import { entityTag } from '../../shared/entity-tags.ts';
import { bool } from '../../db/executor.ts';
import { formatApiDate } from '../../shared/dates.ts';
import type { VersionRow } from './versions.repository.ts';
import type { VersionSchema } from './versions.schemas.ts';

export type Version = Static<typeof VersionSchema>;

export function presentVersion(row: VersionRow): Version {
  return {
    id: row.id,
    published: bool(row.published),
    name: row.name,
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
    slug: row.slug,
    ordr: row.ordr,
  };
}

/** A version's entity tag: a digest of it as the API presents it. */
export const versionTag = (version: Version): string => entityTag('version', JSON.stringify(version));
