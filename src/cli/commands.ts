import { isPermission, PERMISSIONS, type Permission } from '../auth/permissions.ts';
import { ROLES } from '../modules/users/users.service.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../modules/webhooks/webhooks.schemas.ts';
import { oneOf, positiveInt, required, UsageError } from './args.ts';
import { adminContext, command, type Command } from './command.ts';
import { contentsCommands } from './content-commands.ts';
import { IMPORT_COMMAND } from './import-command.ts';
import { listCommands } from './list-commands.ts';
import { projectCommands } from './project-commands.ts';

function permissionList(raw: string | undefined): 'all' | Permission[] {
  if (raw === undefined || raw === 'all') return 'all';
  const list = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (list.includes('all')) return 'all';
  const unknown = list.filter((p) => !isPermission(p));
  if (unknown.length || !list.length)
    throw new UsageError(
      `unknown permission(s): ${unknown.join(', ') || '(none given)'}; valid: all, ${PERMISSIONS.join(', ')}`,
    );
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
    throw new UsageError(
      `unknown event type(s): ${unknown.join(', ') || '(none given)'}; valid: all, ${known.join(', ')}`,
    );
  }
  return [...new Set(list)] as WebhookEventType[];
}

const idOption = (what: string) =>
  ({ type: 'string', value: 'ID', required: true, description: what }) as const;

/** `bin/quire <group> <action>`: each prints the one record it made or changed. */
export const COMMANDS: Record<string, Command> = {
  ...projectCommands,
  'key create': command({
    summary: 'Create an API key; its secret is printed once',
    options: {
      project: idOption('the project it belongs to'),
      name: { type: 'string', value: 'NAME', description: 'a label for it' },
      permissions: {
        type: 'string',
        value: 'all|P1,P2,...',
        description: `what it may do (default all): ${PERMISSIONS.join(', ')}`,
      },
      versions: {
        type: 'string',
        value: 'all|ID1,ID2,...',
        description: 'the versions it reaches (default all)',
      },
      user: { type: 'string', value: 'USER_ID', description: 'the user it acts for' },
    },
    examples: [
      'quire key create --project 1 --name ci',
      'quire key create --project 1 --permissions search.read --name browser',
    ],
    run: async ({ deps }, { values }) => {
      const projectId = positiveInt(required(values.project, 'project'), '--project');
      const input = {
        ...(values.name !== undefined ? { name: values.name } : {}),
        permissions: permissionList(values.permissions),
        versions: versionList(values.versions),
        userId: values.user !== undefined ? positiveInt(values.user, '--user') : null,
      };
      return deps.keys.create(await adminContext(deps, { projectId }), input);
    },
  }),
  'key revoke': command({
    summary: 'Revoke an API key',
    args: ['ID'],
    options: {},
    examples: ['quire key revoke 3'],
    run: async ({ deps }, { positionals }) => {
      const keyId = positiveInt(positionals[0] ?? '', 'key ID');
      return deps.keys.revoke(await adminContext(deps, { keyId }), keyId);
    },
  }),
  'version create': command({
    summary: 'Create a version of a project',
    options: {
      project: idOption('the project'),
      name: { type: 'string', value: 'NAME', required: true, description: "the version's name" },
      slug: { type: 'string', value: 'SLUG', description: 'its slug (default: from the name)' },
      published: { type: 'boolean', description: 'publish it at once' },
    },
    examples: ['quire version create --project 1 --name v2 --published'],
    run: async ({ deps }, { values }) => {
      const projectId = positiveInt(required(values.project, 'project'), '--project');
      const input = {
        name: required(values.name, 'name'),
        ...(values.slug !== undefined ? { slug: values.slug } : {}),
        published: values.published ?? false,
      };
      return deps.versions.create(await adminContext(deps, { projectId }), input);
    },
  }),
  'documentation create': command({
    summary: 'Create a documentation section in a version',
    options: {
      version: idOption('the version'),
      title: { type: 'string', value: 'TITLE', required: true, description: "the section's title" },
      slug: { type: 'string', value: 'SLUG', description: 'its slug (default: from the title)' },
      published: { type: 'boolean', description: 'publish it at once' },
    },
    examples: ['quire documentation create --version 1 --title Guides --published'],
    run: async ({ deps }, { values }) => {
      const versionId = positiveInt(required(values.version, 'version'), '--version');
      const input = {
        title: required(values.title, 'title'),
        ...(values.slug !== undefined ? { slug: values.slug } : {}),
        published: values.published ?? false,
      };
      return deps.documentation.create(await adminContext(deps, { versionId }), versionId, input);
    },
  }),
  'category create': command({
    summary: 'Create a category in a documentation section',
    options: {
      documentation: idOption('the documentation section'),
      title: { type: 'string', value: 'TITLE', required: true, description: "the category's title" },
    },
    examples: ["quire category create --documentation 2 --title 'Getting started'"],
    run: async ({ deps }, { values }) => {
      const documentationId = positiveInt(required(values.documentation, 'documentation'), '--documentation');
      const title = required(values.title, 'title');
      return deps.documentation.createCategory(
        await adminContext(deps, { documentationId }),
        documentationId,
        title,
      );
    },
  }),
  'user create': command({
    summary: 'Create a user of a project',
    options: {
      project: idOption('the project'),
      name: { type: 'string', value: 'NAME', required: true, description: "the user's name" },
      email: { type: 'string', value: 'EMAIL', required: true, description: 'their e-mail address' },
      role: { type: 'string', choices: ROLES, required: true, description: 'their role' },
    },
    examples: ['quire user create --project 1 --name Ada --email ada@acme.io --role WRITER'],
    run: async ({ deps }, { values }) => {
      const projectId = positiveInt(required(values.project, 'project'), '--project');
      const input = {
        name: required(values.name, 'name'),
        email: required(values.email, 'email'),
        role: oneOf(required(values.role, 'role'), ROLES, 'role'),
      };
      return deps.users.create(await adminContext(deps, { projectId }), input);
    },
  }),
  'search reindex': command({
    summary: 'Rebuild the search index (of one project, or of all)',
    options: { project: { type: 'string', value: 'ID', description: 'only this project' } },
    examples: ['quire search reindex', 'quire search reindex --project 1'],
    run: async ({ deps }, { values }) => {
      const projectId = values.project !== undefined ? positiveInt(values.project, '--project') : undefined;
      return deps.search.reindex(projectId);
    },
  }),
  // The secret is in this output only, as in the API's 201 answer.
  'webhook create': command({
    summary: 'Register a webhook; its signing secret is printed once',
    options: {
      project: idOption('the project'),
      url: { type: 'string', value: 'URL', required: true, description: 'where events are sent' },
      events: {
        type: 'string',
        value: 'all|E1,E2,...',
        description: `the events sent (default all): ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      },
      description: { type: 'string', value: 'TEXT', description: 'a note for people' },
    },
    examples: ['quire webhook create --project 1 --url https://ci.acme.io/hook --events page.published'],
    run: async ({ deps }, { values }) => {
      const projectId = positiveInt(required(values.project, 'project'), '--project');
      const input = {
        url: required(values.url, 'url'),
        events: eventList(values.events),
        ...(values.description !== undefined ? { description: values.description } : {}),
      };
      return deps.webhooks.create(await adminContext(deps, { projectId }), input);
    },
  }),
  'webhook list': command({
    summary: "List a project's webhooks",
    options: { project: idOption('the project') },
    examples: ['quire webhook list --project 1'],
    run: async ({ deps }, { values }) => {
      const projectId = positiveInt(required(values.project, 'project'), '--project');
      return deps.webhooks.list(await adminContext(deps, { projectId }));
    },
  }),
  'webhook delete': command({
    summary: 'Delete a webhook',
    args: ['ID'],
    options: {},
    examples: ['quire webhook delete 4'],
    run: async ({ deps }, { positionals }) => {
      const id = positiveInt(positionals[0] ?? '', 'webhook ID');
      const projectId = await deps.webhooks.projectOf(id);
      await deps.webhooks.delete(await adminContext(deps, { projectId }), id);
      return { id, deleted: true };
    },
  }),
  // What was deleted more than 30 days ago goes for good, with link scans stored and webhook
  // deliveries finished that long ago, and rendered contents neither stored nor found for 7 days
  // (the server also does all of these on start and daily).
  purge: command({
    summary: 'Remove for good what was deleted 30 days ago, and stale stored renders',
    options: {},
    examples: ['quire purge'],
    run: async ({ deps }) => {
      const deleted = await deps.pages.purgeDeleted();
      return {
        ...deleted,
        linkScans: await deps.linkScans.purge(),
        renderedContents: await deps.pages.rendered.purge(),
        webhookDeliveries: await deps.webhookDispatcher.purge(),
      };
    },
  }),
  import: IMPORT_COMMAND,
  ...contentsCommands,
  ...listCommands,
};
