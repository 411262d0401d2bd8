import { toCount, type Executor } from '../../db/executor.ts';
import { visiblePost } from '../../db/visibility.ts';

/** A published post as the reader site shows it, its contents as stored (Darkdown). */
export interface ReaderPostRow {
  id: number;
  title: string;
  slug: string;
  content: string;
  created: string;
  updated: string;
}

const POST_COLUMNS = ['cp.id', 'cp.title', 'cp.slug', 'cp.content', 'cp.created', 'cp.updated'] as const;

/**
 * The published posts of a changelog, for the reader site: every read through visiblePost
 * (decision 0023), newest first by (created, id) as the API lists them, on the feed index.
 */
export const readerChangelogsRepository = {
  /** When the changelog was made: part of its feed's id. */
  async created(db: Executor, changelogId: number): Promise<string | null> {
    const row = await db
      .selectFrom('changelogs')
      .select('created')
      .where('id', '=', changelogId)
      .executeTakeFirst();
    return row?.created ?? null;
  },

  /** Up to `limit` published posts, newest first, skipping the `offset` newest. */
  posts(db: Executor, changelogId: number, limit: number, offset: number): Promise<ReaderPostRow[]> {
    return db
      .selectFrom('changelog_posts as cp')
      .$call(visiblePost)
      .where('cp.changelog_id', '=', changelogId)
      .select(POST_COLUMNS)
      .orderBy('cp.created', 'desc')
      .orderBy('cp.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  },

  async countPosts(db: Executor, changelogId: number): Promise<number> {
    const row = await db
      .selectFrom('changelog_posts as cp')
      .$call(visiblePost)
      .where('cp.changelog_id', '=', changelogId)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    return toCount(row?.n);
  },

  /** A published post of the changelog by its slug. */
  post(db: Executor, changelogId: number, slug: string): Promise<ReaderPostRow | undefined> {
    return db
      .selectFrom('changelog_posts as cp')
      .$call(visiblePost)
      .where('cp.changelog_id', '=', changelogId)
      .where('cp.slug', '=', slug)
      .select(POST_COLUMNS)
      .executeTakeFirst();
  },
};
