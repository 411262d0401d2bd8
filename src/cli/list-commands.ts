import { parseOptions, positiveInt, required } from './args.ts';
import { adminContext, type Command } from './command.ts';

/** A list prints as one object, like every other command: `{"items": [...]}`. */
const items = <T>(list: T[]) => ({ items: list });

const projectOption = { project: { type: 'string' } } as const;

async function projectContext(deps: Parameters<Command>[0], args: string[]) {
  const { values } = parseOptions(args, projectOption);
  const projectId = positiveInt(required(values.project, 'project'), '--project');
  return adminContext(deps, { projectId });
}

/**
 * What an administrator reads: `bin/quire <group> list`, and `key rotate`. Keys are listed by prefix
 * only (their secrets are stored hashed); a rotated key's new secret is printed once, as on create.
 */
export const listCommands: Record<string, Command> = {
  'project list': async (deps, args) => {
    parseOptions(args, {});
    return items(await deps.projects.list());
  },
  'key list': async (deps, args) => items(await deps.keys.list(await projectContext(deps, args))),
  'key rotate': async (deps, args) => {
    const { positionals } = parseOptions(args, {}, 1);
    const keyId = positiveInt(positionals[0] ?? '', 'key ID');
    return deps.keys.rotate(await adminContext(deps, { keyId }), keyId);
  },
  'version list': async (deps, args) => items(await deps.versions.list(await projectContext(deps, args))),
  'documentation list': async (deps, args) => {
    const { values } = parseOptions(args, { version: { type: 'string' } });
    const versionId = positiveInt(required(values.version, 'version'), '--version');
    return items(await deps.documentation.listForVersion(await adminContext(deps, { versionId }), versionId));
  },
  'user list': async (deps, args) => items(await deps.users.list(await projectContext(deps, args))),
};
