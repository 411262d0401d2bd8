import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { ChangelogsService } from '../changelogs/changelogs.service.ts';
import { readerChangelogsRepository as repo, type ReaderPostRow } from './readers.changelogs.repository.ts';

/** A published post with its contents as the engine's sanitised HTML. */
export interface ReaderPost {
  id: number;
  title: string;
  slug: string;
  /** stored dates (ISO 8601, UTC) */
  created: string;
  updated: string;
  html: string;
}

/** A page of a changelog's posts, newest first. */
export interface PostPage {
  posts: ReaderPost[];
  /** this page's number, from 1 */
  page: number;
  /** how many pages there are (at least 1) */
  pages: number;
}

/**
 * What readers can see of a project's changelogs, for the reader site: published posts only
 * (visiblePost), rendered by the changelogs module as the API renders them. The site finds the
 * changelog itself in the project's view, which lists only those with a published post.
 */
export class ReaderChangelogs {
  constructor(
    private readonly reader: Kysely<Database>,
    private readonly changelogs: Pick<ChangelogsService, 'postHtml'>,
  ) {}

  /** Page `page` (from 1) of the published posts, `perPage` to a page; null past the last page. */
  async page(
    changelogId: number,
    page: number,
    perPage: number,
    variables: string,
  ): Promise<PostPage | null> {
    const total = await repo.countPosts(this.reader, changelogId);
    const pages = Math.max(1, Math.ceil(total / perPage));
    if (!Number.isInteger(page) || page < 1 || page > pages) return null;
    const rows = await repo.posts(this.reader, changelogId, perPage, (page - 1) * perPage);
    return { posts: await this.rendered(rows, variables), page, pages };
  }

  /** The newest `limit` published posts (a feed). */
  async newest(changelogId: number, limit: number, variables: string): Promise<ReaderPost[]> {
    return this.rendered(await repo.posts(this.reader, changelogId, limit, 0), variables);
  }

  /** A published post by its slug, or null. */
  async post(changelogId: number, slug: string, variables: string): Promise<ReaderPost | null> {
    const row = await repo.post(this.reader, changelogId, slug);
    return row ? ((await this.rendered([row], variables))[0] ?? null) : null;
  }

  /** When the changelog was made, or null when there is no such changelog. */
  created(changelogId: number): Promise<string | null> {
    return repo.created(this.reader, changelogId);
  }

  // One at a time: a large post renders in a worker thread, and a page of them must not take every
  // thread at once from the other requests.
  private async rendered(rows: readonly ReaderPostRow[], variables: string): Promise<ReaderPost[]> {
    const posts: ReaderPost[] = [];
    for (const row of rows) {
      const html = await this.changelogs.postHtml(row, variables);
      posts.push({
        id: row.id,
        title: row.title,
        slug: row.slug,
        created: row.created,
        updated: row.updated,
        html,
      });
    }
    return posts;
  }
}
