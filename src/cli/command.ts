import { CLI_ACTOR, type UseCaseContext } from '../auth/actor.ts';
import type { Deps } from '../deps.ts';
import type { ProjectOwned } from '../modules/projects/projects.service.ts';
import { command as declare, type CommandSpec, type OptionsSpec } from './spec.ts';

/** Where a command may report progress: standard error, and whether a person watches it. */
export interface CommandIo {
  stderr: (text: string) => void;
  stderrIsTerminal: boolean;
}

/** What an admin command works with: the services over the database, and standard error. */
export interface AdminContext {
  deps: Deps;
  io: CommandIo;
}

/** One `bin/quire <group> <action>` (or one-word command): returns the one record it made or changed. */
export type Command = CommandSpec<AdminContext>;

/** The administrator acting on the whole project that owns something (404 when it does not exist). */
export const adminContext = (deps: Deps, owned: ProjectOwned): Promise<UseCaseContext> =>
  deps.projects.contextFor(CLI_ACTOR, owned);

/** Declares an admin command, its values typed by its options. */
export const command = <const T extends OptionsSpec>(spec: CommandSpec<AdminContext, object, T>): Command =>
  declare(spec);
