import type { Deps } from '../../src/deps.ts';
import { CLI_CONTEXT } from '../../src/modules/keys/actor.ts';
import type { Permission } from '../../src/modules/keys/permissions.ts';
import type { AccessMode, Plan } from '../../src/modules/projects/projects.service.ts';
import type { Role } from '../../src/modules/users/users.service.ts';

let counter = 0;
const unique = (prefix: string) => `${prefix} ${++counter}`;

export function createProject(deps: Deps, input: { name?: string; plan?: Plan; access?: AccessMode } = {}) {
  return deps.projects.create({ name: input.name ?? unique('Project'), ...input }, CLI_CONTEXT);
}

export async function createKey(
  deps: Deps,
  projectId: number,
  input: {
    permissions?: 'all' | Permission[];
    versions?: 'all' | number[];
    userId?: number;
    name?: string;
  } = {},
): Promise<{ id: number; key: string }> {
  const record = await deps.keys.create(
    {
      projectId,
      permissions: input.permissions ?? 'all',
      versions: input.versions ?? 'all',
      ...(input.userId !== undefined ? { userId: input.userId } : {}),
      ...(input.name !== undefined ? { name: input.name } : {}),
    },
    CLI_CONTEXT,
  );
  return { id: record.id, key: record.key };
}

export function createVersion(
  deps: Deps,
  projectId: number,
  input: { name?: string; slug?: string; published?: boolean } = {},
) {
  return deps.versions.create(
    { projectId, name: input.name ?? unique('Version'), published: true, ...input },
    CLI_CONTEXT,
  );
}

export function createDocumentation(
  deps: Deps,
  versionId: number,
  input: { title?: string; slug?: string; published?: boolean } = {},
) {
  return deps.documentation.create(
    { versionId, title: input.title ?? unique('Section'), published: true, ...input },
    CLI_CONTEXT,
  );
}

export function createCategory(deps: Deps, documentationId: number, title = unique('Category')) {
  return deps.documentation.createCategory({ documentationId, title }, CLI_CONTEXT);
}

export function createUser(
  deps: Deps,
  projectId: number,
  input: { name?: string; email?: string; role?: Role } = {},
) {
  const n = ++counter;
  return deps.users.create(
    {
      projectId,
      name: input.name ?? `User ${n}`,
      email: input.email ?? `user${n}@example.com`,
      role: input.role ?? 'WRITER',
    },
    CLI_CONTEXT,
  );
}

/** A project with one published version, one published section and an all-permission key. */
export async function createWorld(deps: Deps, input: { plan?: Plan; access?: AccessMode } = {}) {
  const project = await createProject(deps, {
    plan: input.plan ?? 'enterprise',
    access: input.access ?? 'invite',
  });
  const version = await createVersion(deps, project.id, { name: 'v1', slug: 'v1', published: true });
  const documentation = await createDocumentation(deps, version.id, {
    title: 'Guides',
    slug: 'guides',
    published: true,
  });
  const { key, id: keyId } = await createKey(deps, project.id);
  return { project, version, documentation, key, keyId };
}

/** Audit entries of a project, newest first, read straight from the table (the audit API is separate). */
export function auditEntries(deps: Deps, projectId: number) {
  return deps.database.db
    .selectFrom('audit_log')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('id', 'desc')
    .execute();
}

/** A page's history, oldest first, read straight from the table (there is no history API). */
export function pageHistory(deps: Deps, pageId: number) {
  return deps.database.db
    .selectFrom('page_history')
    .selectAll()
    .where('page_id', '=', pageId)
    .orderBy('id')
    .execute();
}

/** The fields of the Page object, in the order of the specification. */
export const PAGE_FIELDS = [
  'id',
  'listed',
  'title',
  'created',
  'updated',
  'slug',
  'contentDraft',
  'contentPublished',
  'path',
] as const;
