import { CLI_ACTOR } from '../auth/actor.ts';
import { isPermission, type Permission } from '../auth/permissions.ts';
import { ACCESS_MODES, PLANS } from '../modules/projects/projects.service.ts';
import { ROLES } from '../modules/users/users.service.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../modules/webhooks/webhooks.schemas.ts';
import { oneOf, parseOptions, positiveInt, required, UsageError } from './args.ts';
import { adminContext, type Command } from './command.ts';
import { contentsCommands } from './content-commands.ts';
import { listCommands } from './list-commands.ts';
import { readKeyFile, readTextFile } from './text-file.ts';

const cli = { actor: CLI_ACTOR, ipAddress: null };
const projectFlags = {
  name: { type: 'string' },
  plan: { type: 'string' },
  access: { type: 'string' },
  'base-path': { type: 'string' },
  host: { type: 'string' },
  variables: { type: 'string' },
  'site-logo': { type: 'string' },
  'site-color': { type: 'string' },
  'site-css': { type: 'string' },
  redirects: { type: 'string' },
  'reader-jwt-key': { type: 'string' },
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

function permissionList(raw: string | undefined): 'all' | Permission[] {
  if (raw === undefined || raw === 'all') return 'all';
  const list = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (list.includes('all')) return 'all';
  const unknown = list.filter((p) => !isPermission(p));
  if (unknown.length || !list.length)
    throw new UsageError(`unknown permission(s): ${unknown.join(', ') || '(none given)'}`);
  return list as Permission[];
}

function versionList(raw: string | undefined): 'all' | number[] {
  if (raw === undefined || raw === 'all') return 'all';
  return raw.split(',').map((v) => positiveInt(v.trim(), 'a version id'));
}

function eventList(raw: string | undefined): WebhookEventType[] {
  if (raw === undefined || raw === 'all') return [...WEBHOOK_EVENT_TYPES];
  const list = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const known = WEBHOOK_EVENT_TYPES as readonly string[];
  const unknown = list.filter((e) => !known.includes(e));
  if (unknown.length || !list.length) {
    throw new UsageError(`unknown event type(s): ${unknown.join(', ') || '(none given)'}`);
  }
  return [...new Set(list)] as WebhookEventType[];
}

/** `bin/quire <group> <action>`: each prints the one record it made or changed. */
export const COMMANDS: Record<string, Command> = {
  'project create': async (deps, args) => {
    const { values } = parseOptions(args, projectFlags);
    return deps.projects.create(cli, {
      name: required(values.name, 'name'),
      ...projectFields(values),
      ...(await siteFields(values)),
    });
  },
  'project update': async (deps, args) => {
    const { values, positionals } = parseOptions(args, projectFlags, 1);
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
  'key create': async (deps, args) => {
    const { values } = parseOptions(args, {
      project: { type: 'string' },
      name: { type: 'string' },
      permissions: { type: 'string' },
      versions: { type: 'string' },
      user: { type: 'string' },
    });
    const projectId = positiveInt(required(values.project, 'project'), '--project');
    const input = {
      ...(values.name !== undefined ? { name: values.name } : {}),
      permissions: permissionList(values.permissions),
      versions: versionList(values.versions),
      userId: values.user !== undefined ? positiveInt(values.user, '--user') : null,
    };
    return deps.keys.create(await adminContext(deps, { projectId }), input);
  },
  'key revoke': async (deps, args) => {
    const { positionals } = parseOptions(args, {}, 1);
    const keyId = positiveInt(positionals[0] ?? '', 'key ID');
    return deps.keys.revoke(await adminContext(deps, { keyId }), keyId);
  },
  'version create': async (deps, args) => {
    const { values } = parseOptions(args, {
      project: { type: 'string' },
      name: { type: 'string' },
      slug: { type: 'string' },
      published: { type: 'boolean' },
    });
    const projectId = positiveInt(required(values.project, 'project'), '--project');
    const input = {
      name: required(values.name, 'name'),
      ...(values.slug !== undefined ? { slug: values.slug } : {}),
      published: values.published ?? false,
    };
    return deps.versions.create(await adminContext(deps, { projectId }), input);
  },
  'documentation create': async (deps, args) => {
    const { values } = parseOptions(args, {
      version: { type: 'string' },
      title: { type: 'string' },
      slug: { type: 'string' },
      published: { type: 'boolean' },
    });
    const versionId = positiveInt(required(values.version, 'version'), '--version');
    const input = {
      title: required(values.title, 'title'),
      ...(values.slug !== undefined ? { slug: values.slug } : {}),
      published: values.published ?? false,
    };
    return deps.documentation.create(await adminContext(deps, { versionId }), versionId, input);
  },
  'category create': async (deps, args) => {
    const { values } = parseOptions(args, { documentation: { type: 'string' }, title: { type: 'string' } });
    const documentationId = positiveInt(required(values.documentation, 'documentation'), '--documentation');
    const title = required(values.title, 'title');
    return deps.documentation.createCategory(
      await adminContext(deps, { documentationId }),
      documentationId,
      title,
    );
  },
  'user create': async (deps, args) => {
    const { values } = parseOptions(args, {
      project: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
    });
    const projectId = positiveInt(required(values.project, 'project'), '--project');
    const input = {
      name: required(values.name, 'name'),
      email: required(values.email, 'email'),
      role: oneOf(required(values.role, 'role'), ROLES, 'role'),
    };
    return deps.users.create(await adminContext(deps, { projectId }), input);
  },
  'search reindex': async (deps, args) => {
    const { values } = parseOptions(args, { project: { type: 'string' } });
    const projectId = values.project !== undefined ? positiveInt(values.project, '--project') : undefined;
    return deps.search.reindex(projectId);
  },
  // The secret is in this output only, as in the API's 201 answer.
  'webhook create': async (deps, args) => {
    const { values } = parseOptions(args, {
      project: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      description: { type: 'string' },
    });
    const projectId = positiveInt(required(values.project, 'project'), '--project');
    const input = {
      url: required(values.url, 'url'),
      events: eventList(values.events),
      ...(values.description !== undefined ? { description: values.description } : {}),
    };
    return deps.webhooks.create(await adminContext(deps, { projectId }), input);
  },
  'webhook list': async (deps, args) => {
    const { values } = parseOptions(args, { project: { type: 'string' } });
    const projectId = positiveInt(required(values.project, 'project'), '--project');
    return deps.webhooks.list(await adminContext(deps, { projectId }));
  },
  'webhook delete': async (deps, args) => {
    const { positionals } = parseOptions(args, {}, 1);
    const id = positiveInt(positionals[0] ?? '', 'webhook ID');
    const projectId = await deps.webhooks.projectOf(id);
    await deps.webhooks.delete(await adminContext(deps, { projectId }), id);
    return { id, deleted: true };
  },
  // What was deleted more than 30 days ago goes for good, with link scans stored and webhook
  // deliveries finished that long ago, and rendered contents neither stored nor found for 7 days
  // (the server also does all of these on start and daily).
  purge: async (deps, args) => {
    parseOptions(args, {});
    const deleted = await deps.pages.purgeDeleted();
    return {
      ...deleted,
      linkScans: await deps.linkScans.purge(),
      renderedContents: await deps.pages.rendered.purge(),
      webhookDeliveries: await deps.webhookDispatcher.purge(),
    };
  },
  ...contentsCommands,
  ...listCommands,
};
