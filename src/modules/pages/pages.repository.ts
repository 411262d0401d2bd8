import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { PageHistoryTable, PagesTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';
import { slugsStartingWith } from '../../db/siblings.ts';

export type PageRow = Selectable<PagesTable>;

/** A page with what presenting and rendering it needs: the slugs of its path and its project's variables. */
export interface PageView {
  id: number;
  documentation_id: number;
  version_id: number;
  title: string;
  slug: string;
  listed: number;
  content_draft: string | null;
  content_published: string | null;
  created: string;
  updated: string;
  documentation_slug: string;
  version_slug: string;
  /** projects.variables, JSON text */
  variables: string;
}

/** One page that an [auto$] link may name: its key is `${documentation_slug}/${slug}`. */
export interface LinkTitleRow {
  documentation_slug: string;
  slug: string;
  title: string;
}

/** Live pages of live sections of live versions of one project; other projects' ids stay invisible. */
const views = (db: Executor, projectId: number) =>
  db
    .selectFrom('pages as p')
    .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
    .innerJoin('versions as v', 'v.id', 'd.version_id')
    .innerJoin('projects as pr', 'pr.id', 'v.project_id')
    .select([
      'p.id',
      'p.documentation_id',
      'd.version_id',
      'p.title',
      'p.slug',
      'p.listed',
      'p.content_draft',
      'p.content_published',
      'p.created',
      'p.updated',
      'd.slug as documentation_slug',
      'v.slug as version_slug',
      'pr.variables',
    ])
    .where('v.project_id', '=', projectId)
    .where('p.deleted_at', 'is', null)
    .where('d.deleted_at', 'is', null)
    .where('v.deleted_at', 'is', null);

export const pagesRepository = {
  findView(db: Executor, projectId: number, id: number): Promise<PageView | undefined> {
    return views(db, projectId).where('p.id', '=', id).executeTakeFirst();
  },

  findViewBySlug(
    db: Executor,
    projectId: number,
    documentationId: number,
    slug: string,
  ): Promise<PageView | undefined> {
    return views(db, projectId)
      .where('p.documentation_id', '=', documentationId)
      .where('p.slug', '=', slug)
      .executeTakeFirst();
  },

  /** Titles of the live pages of a version named by (section slug, page slug) pairs; missing ones are left out. */
  async linkTitles(
    db: Executor,
    versionId: number,
    pairs: ReadonlyArray<{ documentation_slug: string; slug: string }>,
  ): Promise<LinkTitleRow[]> {
    if (pairs.length === 0) return [];
    const wanted = new Set(pairs.map((p) => `${p.documentation_slug}/${p.slug}`));
    // Both slug lists cross-multiply; the exact pairs are kept below. The unique index serves it.
    const rows = await db
      .selectFrom('pages as p')
      .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
      .select(['d.slug as documentation_slug', 'p.slug', 'p.title'])
      .where('d.version_id', '=', versionId)
      .where('d.slug', 'in', [...new Set(pairs.map((p) => p.documentation_slug))])
      .where('p.slug', 'in', [...new Set(pairs.map((p) => p.slug))])
      .where('p.deleted_at', 'is', null)
      .where('d.deleted_at', 'is', null)
      .execute();
    return rows.filter((r) => wanted.has(`${r.documentation_slug}/${r.slug}`));
  },

  /** Deleted pages count too: they still hold their slug in the unique index. */
  slugsStartingWith(db: Executor, documentationId: number, base: string): Promise<Set<string>> {
    return slugsStartingWith(db, 'pages', documentationId, base);
  },

  async slugOwner(db: Executor, documentationId: number, slug: string): Promise<number | undefined> {
    const row = await db
      .selectFrom('pages')
      .select('id')
      .where('documentation_id', '=', documentationId)
      .where('slug', '=', slug)
      .executeTakeFirst();
    return row?.id;
  },

  categories(db: Executor, documentationId: number) {
    return db
      .selectFrom('categories')
      .select(['id', 'title', 'position'])
      .where('documentation_id', '=', documentationId)
      .orderBy('position')
      .orderBy('id')
      .execute();
  },

  async lastPositionInCategory(db: Executor, categoryId: number): Promise<number | null> {
    const row = await db
      .selectFrom('pages')
      .select((eb) => eb.fn.max('position').as('max'))
      .where('category_id', '=', categoryId)
      .executeTakeFirst();
    return row?.max === null || row?.max === undefined ? null : Number(row.max);
  },

  /** Makes room at `position` in a section's index: every entry from there on moves down by one. */
  async shiftFrom(db: Executor, documentationId: number, position: number): Promise<void> {
    await db
      .updateTable('pages')
      .set((eb) => ({ position: eb('position', '+', 1) }))
      .where('documentation_id', '=', documentationId)
      .where('position', '>=', position)
      .execute();
    await db
      .updateTable('categories')
      .set((eb) => ({ position: eb('position', '+', 1) }))
      .where('documentation_id', '=', documentationId)
      .where('position', '>=', position)
      .execute();
  },

  insert(db: Executor, values: Insertable<PagesTable>): Promise<PageRow> {
    return mapUnique(() => db.insertInto('pages').values(values).returningAll().executeTakeFirstOrThrow());
  },

  update(db: Executor, id: number, values: Updateable<PagesTable>): Promise<PageRow> {
    return mapUnique(() =>
      db.updateTable('pages').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow(),
    );
  },

  async insertHistory(db: Executor, values: Insertable<PageHistoryTable>): Promise<void> {
    await db.insertInto('page_history').values(values).execute();
  },
};
