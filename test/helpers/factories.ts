import { CLI_ACTOR, type UseCaseContext } from '../../src/auth/actor.ts';
import type { Permission } from '../../src/auth/permissions.ts';
import type { Deps } from '../../src/deps.ts';
import { unpackRevision } from '../../src/modules/pages/history-packing.ts';
import type { ProjectOwned } from '../../src/modules/projects/projects.service.ts';
import type { AccessMode, Plan } from '../../src/modules/projects/projects.service.ts';
import type { Role } from '../../src/modules/users/users.service.ts';

let counter = 0;
const unique = (prefix: string) => `${prefix} ${++counter}`;

/** The administrator's context in the project that owns something, as the CLI builds it. */
export const adminContext = (deps: Deps, owned: ProjectOwned): Promise<UseCaseContext> =>
  deps.projects.contextFor(CLI_ACTOR, owned);

export function createProject(deps: Deps, input: { name?: string; plan?: Plan; access?: AccessMode } = {}) {
  return deps.projects.create(
    { actor: CLI_ACTOR, ipAddress: null },
    { name: input.name ?? unique('Project'), ...input },
  );
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
  const record = await deps.keys.create(await adminContext(deps, { projectId }), {
    permissions: input.permissions ?? 'all',
    versions: input.versions ?? 'all',
    ...(input.userId !== undefined ? { userId: input.userId } : {}),
    ...(input.name !== undefined ? { name: input.name } : {}),
  });
  return { id: record.id, key: record.key };
}

export async function createVersion(
  deps: Deps,
  projectId: number,
  input: { name?: string; slug?: string; published?: boolean } = {},
) {
  const ctx = await adminContext(deps, { projectId });
  return deps.versions.create(ctx, { name: input.name ?? unique('Version'), published: true, ...input });
}

export async function createDocumentation(
  deps: Deps,
  versionId: number,
  input: { title?: string; slug?: string; published?: boolean } = {},
) {
  const ctx = await adminContext(deps, { versionId });
  return deps.documentation.create(ctx, versionId, {
    title: input.title ?? unique('Section'),
    published: true,
    ...input,
  });
}

export async function createCategory(deps: Deps, documentationId: number, title = unique('Category')) {
  const ctx = await adminContext(deps, { documentationId });
  return deps.documentation.createCategory(ctx, documentationId, title);
}

export async function createUser(
  deps: Deps,
  projectId: number,
  input: { name?: string; email?: string; role?: Role } = {},
) {
  const n = ++counter;
  const ctx = await adminContext(deps, { projectId });
  return deps.users.create(ctx, {
    name: input.name ?? `User ${n}`,
    email: input.email ?? `user${n}@example.com`,
    role: input.role ?? 'WRITER',
  });
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

/**
 * A page's history, oldest first, read straight from the table, each revision's contents unpacked
 * (decision 0038) into `content_draft` and `content_published`.
 */
export async function pageHistory(deps: Deps, pageId: number) {
  const rows = await deps.database.db
    .selectFrom('page_history')
    .selectAll()
    .where('page_id', '=', pageId)
    .orderBy('id')
    .execute();
  const packed = new Map(
    rows.flatMap((row) => (row.contents === null ? [] : [[row.id, row.contents] as const])),
  );
  return rows.map(({ contents, ...row }) =>
    contents === null ? row : { ...row, ...unpackRevision(row.id, packed) },
  );
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

const STORED_AT = '2026-11-21T10:15:00.000Z';

/**
 * A page row written straight to its table (for listings that read pages the page API did not make):
 * a draft and a published body that listings must not return, stored dates of 2026-11-21 10:15.
 */
export async function insertPageRow(
  deps: Deps,
  documentationId: number,
  input: { title?: string; slug?: string; listed?: boolean; deleted?: boolean; updated?: string } = {},
): Promise<number> {
  const n = ++counter;
  const row = await deps.database.db
    .insertInto('pages')
    .values({
      documentation_id: documentationId,
      category_id: null,
      parent_page_id: null,
      title: input.title ?? `Page ${n}`,
      slug: input.slug ?? `page-${n}`,
      listed: input.listed === false ? 0 : 1,
      content_draft: 'Draft body that the listing must not return',
      content_published: 'Published body',
      position: n,
      deleted_at: input.deleted ? STORED_AT : null,
      created: STORED_AT,
      updated: input.updated ?? STORED_AT,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
