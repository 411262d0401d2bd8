import { ForbiddenError } from '../../errors.ts';
import type { Permission } from './permissions.ts';

export interface ProjectSettings {
  id: number;
  name: string;
  plan: 'free' | 'grow' | 'enterprise';
  access: 'public' | 'invite';
  basePath: string | null;
  host: string | null;
}

/** Who is calling: the key, its project, what it may do. Built once per request by the auth hook. */
export interface Actor {
  keyId: number;
  keyName: string;
  project: ProjectSettings;
  permissions: ReadonlySet<Permission>;
  /** null: every version of the project */
  versionScope: ReadonlySet<number> | null;
  user: { id: number; email: string } | null;
}

/** Where a change came from, for the audit log. The CLI passes a context with no actor. */
export interface ChangeContext {
  actor: Actor | null;
  ipAddress: string | null;
}

export const CLI_CONTEXT: ChangeContext = { actor: null, ipAddress: null };

export function canSeeVersion(actor: Actor, versionId: number): boolean {
  return actor.versionScope === null || actor.versionScope.has(versionId);
}

export function assertVersionInScope(actor: Actor | null, versionId: number): void {
  if (actor && !canSeeVersion(actor, versionId)) {
    throw new ForbiddenError(`This API key has no access to version ${versionId}.`);
  }
}
