import type { Transaction } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { Database, FormerSlugsTable } from '../../db/schema.ts';

export type SlugKind = FormerSlugsTable['kind'];

/** A page's address as it stands: its version's, section's and own slugs and ids. */
export interface PageAddressRow {
  version_id: number;
  version_slug: string;
  section_id: number;
  section_slug: string;
  page_id: number;
  page_slug: string;
}

/**
 * The slugs versions, sections and pages had (migration 0017), and what a slug names now: the
 * version, section or page that holds it, else the one that held it last.
 */
export const redirectsRepository = {
  /** Remembers that `slug` named `targetId` in `parentId`; a slug remembered before moves to it. */
  remembering(trx: Transaction<Database>, kind: SlugKind, parentId: number, slug: string, targetId: number) {
    return trx
      .insertInto('former_slugs')
      .values({ kind, parent_id: parentId, slug, target_id: targetId })
      .onConflict((oc) => oc.columns(['kind', 'parent_id', 'slug']).doUpdateSet({ target_id: targetId }));
  },

  /** As remembering, for a page's former slug within the section it is in. */
  rememberingPage(trx: Transaction<Database>, pageId: number, slug: string) {
    return trx
      .insertInto('former_slugs')
      .columns(['kind', 'parent_id', 'slug', 'target_id'])
      .expression((eb) =>
        eb
          .selectFrom('pages')
          .where('id', '=', pageId)
          .select((s) => [
            s.val<SlugKind>('page').as('kind'),
            'documentation_id as parent_id',
            s.val(slug).as('slug'),
            'id as target_id',
          ]),
      )
      .onConflict((oc) => oc.columns(['kind', 'parent_id', 'slug']).doUpdateSet({ target_id: pageId }));
  },

  /** The version, section or page that `slug` names in `parentId`: its holder, else its last holder. */
  async named(db: Executor, kind: SlugKind, parentId: number, slug: string): Promise<number | null> {
    const holder = await (
      kind === 'version'
        ? db.selectFrom('versions').select('id').where('project_id', '=', parentId).where('slug', '=', slug)
        : kind === 'section'
          ? db
              .selectFrom('documentation')
              .select('id')
              .where('version_id', '=', parentId)
              .where('slug', '=', slug)
          : db
              .selectFrom('pages')
              .select('id')
              .where('documentation_id', '=', parentId)
              .where('slug', '=', slug)
    ).executeTakeFirst();
    if (holder !== undefined) return holder.id;
    const former = await db
      .selectFrom('former_slugs')
      .select('target_id')
      .where('kind', '=', kind)
      .where('parent_id', '=', parentId)
      .where('slug', '=', slug)
      .executeTakeFirst();
    return former?.target_id ?? null;
  },

  /** Where a page that is not deleted is now (its version or section may be). */
  pageAddress(db: Executor, pageId: number): Promise<PageAddressRow | undefined> {
    return db
      .selectFrom('pages as p')
      .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
      .innerJoin('versions as v', 'v.id', 'd.version_id')
      .where('p.id', '=', pageId)
      .where('p.deleted_at', 'is', null)
      .select([
        'v.id as version_id',
        'v.slug as version_slug',
        'd.id as section_id',
        'd.slug as section_slug',
        'p.id as page_id',
        'p.slug as page_slug',
      ])
      .executeTakeFirst();
  },

  /** Where a section is now, with its version. */
  sectionAddress(
    db: Executor,
    sectionId: number,
  ): Promise<Omit<PageAddressRow, 'page_id' | 'page_slug'> | undefined> {
    return db
      .selectFrom('documentation as d')
      .innerJoin('versions as v', 'v.id', 'd.version_id')
      .where('d.id', '=', sectionId)
      .select([
        'v.id as version_id',
        'v.slug as version_slug',
        'd.id as section_id',
        'd.slug as section_slug',
      ])
      .executeTakeFirst();
  },

  /** A version's slug now. */
  async versionSlug(db: Executor, versionId: number): Promise<string | null> {
    const row = await db.selectFrom('versions').select('slug').where('id', '=', versionId).executeTakeFirst();
    return row?.slug ?? null;
  },
};
