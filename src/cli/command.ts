import { CLI_ACTOR, type UseCaseContext } from '../auth/actor.ts';
import type { Deps } from '../deps.ts';
import type { ProjectOwned } from '../modules/projects/projects.service.ts';

/** Where a command may report progress: standard error, and whether a person watches it. */
export interface CommandIo {
  stderr: (text: string) => void;
  stderrIsTerminal: boolean;
}

/** One `bin/quire <group> <action>` (or one-word command): returns the one record it made or changed. */
export type Command = (deps: Deps, args: string[], io: CommandIo) => Promise<object>;

/** The administrator acting on the whole project that owns something (404 when it does not exist). */
export const adminContext = (deps: Deps, owned: ProjectOwned): Promise<UseCaseContext> =>
  deps.projects.contextFor(CLI_ACTOR, owned);
