import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { ForbiddenError } from '../errors.ts';
import type { Permission } from './permissions.ts';

export interface ProjectSettings {
  id: number;
  name: string;
  plan: 'free' | 'grow' | 'enterprise';
  access: 'public' | 'invite';
  basePath: string | null;
  host: string | null;
}

/** An API key acting: what it may do, and the user it belongs to (if any). */
export interface KeyActor {
  kind: 'key';
  keyId: number;
  keyName: string;
  permissions: ReadonlySet<Permission>;
  user: { id: number; email: string } | null;
}

/** The administrator at the command line. */
export interface CliActor {
  kind: 'cli';
}

/** Quire itself: an import, a background job. */
export interface SystemActor {
  kind: 'system';
  job: string;
}

/** Who is acting; recorded with every change. Only keys are limited by permissions. */
export type Actor = KeyActor | CliActor | SystemActor;

export const CLI_ACTOR: CliActor = { kind: 'cli' };
export const systemActor = (job: string): SystemActor => ({ kind: 'system', job });

/** Where a use case acts: one project, and the versions of it within reach (null: every version). */
export interface Scope {
  project: ProjectSettings;
  versions: ReadonlySet<number> | null;
}

/**
 * What every use case is called with: the scope, the actor, where the call came from, and the
 * transaction to join. Without a transaction, a write opens its own and a read uses the read connection.
 */
export interface UseCaseContext {
  scope: Scope;
  actor: Actor;
  ipAddress: string | null;
  transaction?: Transaction<Database>;
  /**
   * Opens the transaction to join when there is none yet: a request under an Idempotency-Key, whose
   * first write opens the transaction that its answer commits (decision 0021).
   */
  join?: () => Promise<Transaction<Database>>;
  /** the request's `If-Match` header: a write checks it against the current state, in its transaction */
  ifMatch?: string;
}

/** A context whose transaction is open: what code running inside a use case's transaction holds. */
export type TransactionContext = UseCaseContext & { transaction: Transaction<Database> };

/** The scope of an administrator or a job: a whole project. */
export const wholeProject = (project: ProjectSettings): Scope => ({ project, versions: null });

export function may(actor: Actor, permission: Permission): boolean {
  return actor.kind !== 'key' || actor.permissions.has(permission);
}

export function assertMay(actor: Actor, permission: Permission): void {
  if (!may(actor, permission)) {
    throw new ForbiddenError(`This API key lacks the permission '${permission}'.`);
  }
}

export function canSeeVersion(scope: Scope, versionId: number): boolean {
  return scope.versions === null || scope.versions.has(versionId);
}

export function assertVersionInScope(scope: Scope, versionId: number): void {
  if (!canSeeVersion(scope, versionId)) {
    // Not naming the version: asked for a page or a slug, the answer would tell its version's id.
    throw new ForbiddenError('This API key has no access to the version of this resource.');
  }
}
