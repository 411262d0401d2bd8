import { positiveInt, required } from './args.ts';
import { adminContext, command, type AdminContext, type Command } from './command.ts';

/** A list prints as one object, like every other command: `{"items": [...]}`. */
const items = <T>(list: T[]) => ({ items: list });

const projectOption = {
  project: { type: 'string', value: 'ID', required: true, description: 'the project' },
} as const;

function projectContext({ deps }: AdminContext, project: string | undefined) {
  const projectId = positiveInt(required(project, 'project'), '--project');
  return adminContext(deps, { projectId });
}

/**
 * What an administrator reads: `bin/quire <group> list`, and `key rotate`. Keys are listed by prefix
 * only (their secrets are stored hashed); a rotated key's new secret is printed once, as on create.
 */
export const listCommands: Record<string, Command> = {
  'project list': command({
    summary: 'List the projects',
    options: {},
    examples: ['quire project list'],
    run: async ({ deps }) => items(await deps.projects.list()),
  }),
  'key list': command({
    summary: "List a project's API keys (by prefix: their secrets are stored hashed)",
    options: projectOption,
    examples: ['quire key list --project 1'],
    run: async (ctx, { values }) =>
      items(await ctx.deps.keys.list(await projectContext(ctx, values.project))),
  }),
  'key rotate': command({
    summary: 'Give an API key a new secret, printed once; the old one stops working',
    args: ['ID'],
    options: {},
    examples: ['quire key rotate 3'],
    run: async ({ deps }, { positionals }) => {
      const keyId = positiveInt(positionals[0] ?? '', 'key ID');
      return deps.keys.rotate(await adminContext(deps, { keyId }), keyId);
    },
  }),
  'version list': command({
    summary: "List a project's versions",
    options: projectOption,
    examples: ['quire version list --project 1'],
    run: async (ctx, { values }) =>
      items(await ctx.deps.versions.list(await projectContext(ctx, values.project))),
  }),
  'documentation list': command({
    summary: "List a version's documentation sections",
    options: { version: { type: 'string', value: 'ID', required: true, description: 'the version' } },
    examples: ['quire documentation list --version 1'],
    run: async ({ deps }, { values }) => {
      const versionId = positiveInt(required(values.version, 'version'), '--version');
      return items(
        await deps.documentation.listForVersion(await adminContext(deps, { versionId }), versionId),
      );
    },
  }),
  'user list': command({
    summary: "List a project's users",
    options: projectOption,
    examples: ['quire user list --project 1'],
    run: async (ctx, { values }) =>
      items(await ctx.deps.users.list(await projectContext(ctx, values.project))),
  }),
};
