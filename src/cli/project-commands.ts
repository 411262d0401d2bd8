import { CLI_ACTOR } from '../auth/actor.ts';
import { ACCESS_MODES, PLANS } from '../modules/projects/projects.service.ts';
import { oneOf, positiveInt, required, UsageError } from './args.ts';
import { adminContext, command, type Command } from './command.ts';
import { readKeyFile, readTextFile } from './text-file.ts';

const cli = { actor: CLI_ACTOR, ipAddress: null };
const projectFlags = {
  name: { type: 'string', value: 'NAME', description: "the project's name" },
  plan: { type: 'string', choices: PLANS, description: 'its plan (default free)' },
  access: { type: 'string', choices: ACCESS_MODES, description: 'who reads its site (default public)' },
  'base-path': { type: 'string', value: 'PATH', description: "the site's path prefix ('' clears it)" },
  host: { type: 'string', value: 'URL', description: "the site's own address ('' clears it)" },
  variables: { type: 'string', value: 'JSON', description: 'variables pages use, as a JSON object' },
  'site-logo': { type: 'string', value: 'DATA_URL|/PATH', description: "the site's logo ('' clears it)" },
  'site-color': { type: 'string', value: '#RRGGBB', description: "the site's accent colour ('' clears it)" },
  'site-css': { type: 'string', value: 'FILE', description: "a stylesheet for the site ('' clears it)" },
  redirects: { type: 'string', value: 'FILE', description: "the site's redirect rules ('' clears them)" },
} as const;

const projectUpdateFlags = {
  ...projectFlags,
  'reader-jwt-key': {
    type: 'string',
    value: 'FILE',
    description:
      "reader login: an HS256 secret of 32+ bytes, or an RS256/ES256 public key PEM ('' removes it)",
  },
} as const;

/** A flag naming a file whose text is the setting; `''` clears the setting. */
const fileOption = async (file: string | undefined, flag: string): Promise<string | null | undefined> =>
  file === undefined ? undefined : file === '' ? null : readTextFile(file, flag);

/** The site settings among the flags: logo and colour as given, stylesheet and rules from files. */
async function siteFields(values: {
  'site-logo'?: string;
  'site-color'?: string;
  'site-css'?: string;
  redirects?: string;
}) {
  const siteCss = await fileOption(values['site-css'], 'site-css');
  const redirects = await fileOption(values.redirects, 'redirects');
  return {
    ...(values['site-logo'] !== undefined ? { siteLogo: values['site-logo'] || null } : {}),
    ...(values['site-color'] !== undefined ? { siteColor: values['site-color'] || null } : {}),
    ...(siteCss !== undefined ? { siteCss } : {}),
    ...(redirects !== undefined ? { redirects } : {}),
  };
}

function projectFields(values: {
  plan?: string;
  access?: string;
  'base-path'?: string;
  host?: string;
  variables?: string;
}) {
  return {
    ...(values.variables !== undefined ? { variables: jsonOption(values.variables, 'variables') } : {}),
    ...(values.plan !== undefined ? { plan: oneOf(values.plan, PLANS, 'plan') } : {}),
    ...(values.access !== undefined ? { access: oneOf(values.access, ACCESS_MODES, 'access') } : {}),
    ...(values['base-path'] !== undefined ? { basePath: values['base-path'] || null } : {}),
    ...(values.host !== undefined ? { host: values.host || null } : {}),
  };
}

/** A flag's JSON text, parsed (the service checks its shape). */
function jsonOption(text: string, flag: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`--${flag} is not JSON: ${(error as Error).message}`);
  }
}

/** `bin/quire project create|update`: a project's settings, its site's and its reader login's key. */
export const projectCommands: Record<string, Command> = {
  'project create': command({
    summary: 'Create a project',
    options: { ...projectFlags, name: { ...projectFlags.name, required: true } },
    examples: [
      'quire project create --name Acme --plan grow',
      'quire project create --name Intranet --access invite',
    ],
    run: async ({ deps }, { values }) =>
      deps.projects.create(cli, {
        name: required(values.name, 'name'),
        ...projectFields(values),
        ...(await siteFields(values)),
      }),
  }),
  'project update': command({
    summary: "Change a project's settings (at least one option)",
    args: ['ID'],
    options: projectUpdateFlags,
    examples: [
      "quire project update 1 --host https://docs.acme.io --base-path ''",
      'quire project update 1 --site-css site.css',
    ],
    run: async ({ deps }, { values, positionals }) => {
      const id = positiveInt(positionals[0] ?? '', 'project ID');
      const fields = {
        ...(values.name !== undefined ? { name: required(values.name, 'name') } : {}),
        ...projectFields(values),
        ...(await siteFields(values)),
      };
      const jwtKey = values['reader-jwt-key'];
      if (Object.keys(fields).length === 0 && jwtKey === undefined) {
        throw new UsageError('nothing to update: give at least one option');
      }
      const ctx = await adminContext(deps, { projectId: id });
      // The key of the project's own reader login: its bytes as they are ('' removes it).
      if (jwtKey !== undefined) {
        await deps.readerLogin.setJwtKey(
          ctx,
          jwtKey === '' ? null : await readKeyFile(jwtKey, 'reader-jwt-key'),
        );
      }
      return Object.keys(fields).length === 0 ? deps.projects.get(id) : deps.projects.update(ctx, fields);
    },
  }),
};
