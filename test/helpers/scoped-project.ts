import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { adminContext, createKey, createProject, createUser } from './factories.ts';
import { openapiJson, upload } from './references.ts';
import { client, type TestApp } from './test-app.ts';

/** What one version of the project holds, each thing named after the version's marker. */
export interface VersionThings {
  marker: string;
  id: number;
  slug: string;
  sectionId: number;
  sectionSlug: string;
  categoryId: number;
  pageId: number;
  pageSlug: string;
  childId: number;
  referenceId: number;
}

/** Tables whose ids name things of a version. */
const VERSIONED_TABLES = ['versions', 'documentation', 'categories', 'pages', 'api_references'] as const;

/**
 * Moves the id sequences of the versioned tables far past anything else, each to its own range, so
 * that an id of a hidden thing is a number found nowhere else in an answer by chance: a scan for
 * the number then finds the id wherever it appears (a field, a path, a map key, a message).
 */
async function distinctiveIds(deps: Deps, base: number): Promise<void> {
  const db = deps.database.db;
  for (const [index, table] of VERSIONED_TABLES.entries()) {
    const next = base + index * 100_000;
    if (deps.database.dialect === 'postgres') {
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), ${next})`.execute(db);
    } else {
      const moved = await sql`update sqlite_sequence set seq = ${next} where name = ${table}`.execute(db);
      if (Number(moved.numAffectedRows ?? 0) === 0) {
        await sql`insert into sqlite_sequence (name, seq) values (${table}, ${next})`.execute(db);
      }
    }
  }
}

/** A version with a section, a category, a published page with a pending draft, a sub-page, a reference. */
export async function fillVersion(
  t: TestApp,
  key: string,
  marker: string,
  published: boolean,
): Promise<VersionThings> {
  const api = client(t.app, key);
  const ok = <T>(res: { statusCode: number; body: string; json<U>(): U }, status = 201): T => {
    expect(res.statusCode, res.body).toBe(status);
    return res.json<T>();
  };
  const version = ok<{ id: number; slug: string }>(
    await api.post('/version', { name: `Version ${marker}`, slug: marker, published }),
  );
  const section = ok<{ id: number; slug: string }>(
    await api.post(`/version/${version.id}/documentation`, { title: `Section ${marker}`, published: true }),
  );
  const category = ok<{ id: number }>(
    await api.post(`/documentation/${section.id}/category`, { title: `Category ${marker}` }),
  );
  const content = [
    `Published body ${marker}.`,
    '',
    `## Heading ${marker}`,
    '',
    `Words about ${marker}, and [a link ${marker}](/${marker}/${section.slug}/nowhere-${marker}).`,
  ].join('\n');
  const page = ok<{ id: number; slug: string }>(
    await api.post(`/documentation/${section.id}/page`, {
      title: `Page ${marker}`,
      content,
      categoryTitle: `Category ${marker}`,
    }),
    200,
  );
  ok(await api.put(`/page/${page.id}/publish`), 200);
  ok(await api.put(`/page/${page.id}`, { content: `Pending draft ${marker}.` }), 200);
  const child = ok<{ id: number }>(
    await api.post(`/documentation/${section.id}/page`, {
      title: `Child ${marker}`,
      content: `Child draft ${marker}.`,
      parentId: page.id,
    }),
    200,
  );
  const reference = ok<{ id: number }>(
    await upload(t.app, key, version.id, openapiJson(`API ${marker}`, { tags: [{ name: marker }] }), {
      publish: true,
    }),
  );
  ok(
    await upload(
      t.app,
      key,
      version.id,
      openapiJson(`API ${marker}`, { tags: [{ name: `draft-${marker}` }] }),
      {
        publish: false,
      },
    ),
  );
  return {
    marker,
    id: version.id,
    slug: version.slug,
    sectionId: section.id,
    sectionSlug: section.slug,
    categoryId: category.id,
    pageId: page.id,
    pageSlug: page.slug,
    childId: child.id,
    referenceId: reference.id,
  };
}

/**
 * An enterprise, invite-only project with v1 (published), v2 (published) and v3 (unpublished), each
 * filled alike and marked `markerv1`…; a changelog with a post, a user, a reader grant; an unlimited
 * key and a key limited to v1 with every permission.
 */
export async function createScopedProject(t: TestApp) {
  const project = await createProject(t.deps, { plan: 'enterprise', access: 'invite' });
  const user = await createUser(t.deps, project.id, { email: 'writer@example.com' });
  const admin = await createKey(t.deps, project.id, { userId: user.id, name: 'admin' });
  const v1 = await fillVersion(t, admin.key, 'markerv1', true);
  // Ids of what the v1 key must not see are drawn from ranges nothing else reaches.
  await distinctiveIds(t.deps, 7_000_000);
  const v2 = await fillVersion(t, admin.key, 'markerv2', true);
  const v3 = await fillVersion(t, admin.key, 'markerv3', false);
  const scoped = await createKey(t.deps, project.id, { versions: [v1.id], name: 'v1 only' });
  const api = client(t.app, admin.key);
  const changelog = await t.deps.changelogs.create(await adminContext(t.deps, { projectId: project.id }), {
    title: 'News',
  });
  expect(
    (await api.post(`/changelog/${changelog.id}/post`, { title: 'Hello', content: 'Hi.' })).statusCode,
  ).toBe(200);
  expect((await api.post('/reader-access', { email: 'reader@example.com' })).statusCode).toBe(200);
  return { project, admin: admin.key, scoped: scoped.key, changelogId: changelog.id, v1, hidden: [v2, v3] };
}

export type ScopedProject = Awaited<ReturnType<typeof createScopedProject>>;

/** Every id of a version's things, as text. */
export const idsOf = (v: VersionThings): string[] =>
  [v.id, v.sectionId, v.categoryId, v.pageId, v.childId, v.referenceId].map(String);

/**
 * What of the hidden versions `text` holds: their markers (every title, name, slug and body of
 * theirs carries one) and their ids as whole numbers, except what the request itself named (an
 * answer may echo its query or the id it was asked for).
 */
export function leaks(text: string, hidden: readonly VersionThings[], asked = ''): string[] {
  const found: string[] = [];
  const lower = text.toLowerCase();
  for (const v of hidden) {
    if (!asked.includes(v.marker) && lower.includes(v.marker)) found.push(v.marker);
    for (const id of idsOf(v)) {
      if (new RegExp(`(?<![0-9])${id}(?![0-9])`).test(asked)) continue;
      if (new RegExp(`(?<![0-9])${id}(?![0-9])`).test(text)) found.push(`id ${id}`);
    }
  }
  return found;
}
