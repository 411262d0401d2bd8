import { sql, type Insertable, type Selectable } from 'kysely';
import type { DialectName } from '../../db/dialect.ts';
import { toCount, type Executor } from '../../db/executor.ts';
import type { ChangelogPostsTable, ChangelogsTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';

export type ChangelogRow = Selectable<ChangelogsTable>;
export type ChangelogPostRow = Selectable<ChangelogPostsTable>;
/**
 * A post read for an answer: on SQLite its content as the stored UTF-8 bytes (as pages are read),
 * which costs a fraction of decoding a large one into a string on the event loop.
 */
export type ChangelogPostSource = Omit<ChangelogPostRow, 'content'> & { content: string | Uint8Array };

/** Where a keyset page of posts starts: after this post, in newest-first order. */
export interface PostPosition {
  created: string;
  id: number;
}

export const changelogsRepository = {
  insert(db: Executor, values: Insertable<ChangelogsTable>): Promise<ChangelogRow> {
    return mapUnique(() =>
      db.insertInto('changelogs').values(values).returningAll().executeTakeFirstOrThrow(),
    );
  },

  /** A changelog of the project, with the project's variables (posts are rendered with them). */
  findInProject(db: Executor, projectId: number, id: number) {
    return db
      .selectFrom('changelogs as c')
      .innerJoin('projects as pr', 'pr.id', 'c.project_id')
      .select(['c.id', 'c.slug', 'pr.variables'])
      .where('c.project_id', '=', projectId)
      .where('c.id', '=', id)
      .executeTakeFirst();
  },

  insertPost(db: Executor, values: Insertable<ChangelogPostsTable>): Promise<ChangelogPostRow> {
    return mapUnique(() =>
      db.insertInto('changelog_posts').values(values).returningAll().executeTakeFirstOrThrow(),
    );
  },

  /** Where a post stands in its changelog's feed; undefined for a post of another changelog. */
  postPosition(db: Executor, changelogId: number, id: number): Promise<PostPosition | undefined> {
    return db
      .selectFrom('changelog_posts')
      .select(['created', 'id'])
      .where('changelog_id', '=', changelogId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /**
   * Up to `limit` posts, newest first by (created, id), after `after` when given: a keyset on the
   * feed index, so posts written meanwhile (newer, so before the position) never shift a page.
   */
  posts(
    db: Executor,
    dialect: DialectName,
    changelogId: number,
    after: PostPosition | null,
    limit: number,
  ): Promise<ChangelogPostSource[]> {
    const content =
      dialect === 'sqlite'
        ? sql<string | Uint8Array>`cast(content as blob)`
        : sql<string | Uint8Array>`content`;
    let query = db
      .selectFrom('changelog_posts')
      .select([
        'id',
        'changelog_id',
        'title',
        'slug',
        'published',
        'created',
        'updated',
        content.as('content'),
      ])
      .where('changelog_id', '=', changelogId);
    if (after !== null) {
      query = query.where((eb) =>
        eb.or([
          eb('created', '<', after.created),
          eb.and([eb('created', '=', after.created), eb('id', '<', after.id)]),
        ]),
      );
    }
    return query.orderBy('created', 'desc').orderBy('id', 'desc').limit(limit).execute();
  },

  async countPosts(db: Executor, changelogId: number): Promise<number> {
    const row = await db
      .selectFrom('changelog_posts')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('changelog_id', '=', changelogId)
      .executeTakeFirst();
    return toCount(row?.n);
  },
};
