import { CLI_ACTOR, type UseCaseContext } from '../auth/actor.ts';
import type { Deps } from '../deps.ts';
import type { ProjectOwned } from '../modules/projects/projects.service.ts';

/** One `bin/quire <group> <action>`: returns the one record it made or changed. */
export type Command = (deps: Deps, args: string[]) => Promise<object>;

/** The administrator acting on the whole project that owns something (404 when it does not exist). */
export const adminContext = (deps: Deps, owned: ProjectOwned): Promise<UseCaseContext> =>
  deps.projects.contextFor(CLI_ACTOR, owned);
