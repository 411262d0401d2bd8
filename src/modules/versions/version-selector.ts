import type { Scope } from '../../auth/actor.ts';
import type { Executor } from '../../db/executor.ts';
import type { VersionRow } from './versions.repository.ts';

/** How callers name a version: by id, by slug, or `latest` (the default version). */
export type VersionSelector = { id: number } | { slug: string } | { latest: true };

/**
 * VersionsService.resolve, as the cloner and the report it builds use it: naming only this keeps
 * them from importing the service that imports them.
 */
export interface VersionResolver {
  resolve(db: Executor, scope: Scope, selector: VersionSelector): Promise<VersionRow>;
}
