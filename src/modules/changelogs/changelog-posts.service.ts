import type { Kysely } from 'kysely';
import type { Scope, UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import { int, type Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { pickSlug } from '../../db/siblings.ts';
import { inTransaction } from '../../db/transaction.ts';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { decodeCursor, encodeCursor } from '../../shared/cursor.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { assertSlug } from '../../shared/slug.ts';
import { assertNotBlank } from '../../shared/text.ts';
import type { PostRenderer } from '../pages/post-renderer.ts';
import { presentPost, serialisePostList, type ChangelogPost, type PostList } from './changelogs.presenter.ts';
import { changelogsRepository as repo, type PostPosition } from './changelogs.repository.ts';
import type { ChangelogPostCreateInput, ChangelogPostListInput } from './changelogs.schemas.ts';

const DEFAULT_COUNT = 10;

/**
 * The posts of a changelog (N5/N6): written one at a time, published or not; read newest first, a
 * keyset page at a time, contents rendered like a page's.
 */
export class ChangelogPostsService {
  private readonly db: Kysely<Database>;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    private readonly renderer: PostRenderer,
  ) {
    this.db = database.db;
  }

  /** A post of a changelog of the scope's project; its slug unique in the changelog. */
  async create(
    ctx: UseCaseContext,
    changelogId: number,
    input: ChangelogPostCreateInput,
  ): Promise<ChangelogPost> {
    assertNotBlank('body.title', input.title);
    if (input.slug !== undefined) assertSlug('body.slug', input.slug);
    const projectId = ctx.scope.project.id;
    // A race for the same slug breaks the unique index; inTransaction then runs this again, and
    // pickSlug sees the slug taken: the next free one, or a 409 for a slug the caller chose.
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const changelog = await this.changelog(trx, ctx.scope, changelogId);
      const slug = await pickSlug(trx, 'changelog_posts', changelog.id, {
        kind: 'post of this changelog',
        explicit: input.slug,
        title: input.title,
        fallback: 'post',
      });
      const now = toStoredDate(this.clock.now());
      const post = presentPost(
        await repo.insertPost(trx, {
          changelog_id: changelog.id,
          title: input.title,
          slug,
          published: int(input.published ?? false),
          content: input.content,
          created: now,
          updated: now,
        }),
      );
      await this.changes.record(tx, {
        type: 'changelog_post.created',
        projectId,
        changelogId: changelog.id,
        post,
      });
      return post;
    });
  }

  /**
   * The changelog's posts, newest first, as the serialised answer. The cursor names the last post
   * given; the next answer starts after that post's (created, id), so posts written meanwhile, which
   * are newer, never shift or repeat one.
   */
  async listJson(
    ctx: UseCaseContext,
    changelogId: number,
    query: ChangelogPostListInput,
  ): Promise<string | Buffer> {
    const db = ctx.transaction ?? this.database.reader;
    const changelog = await this.changelog(db, ctx.scope, changelogId);
    const count = query.count ?? DEFAULT_COUNT;
    const after = query.cursor === undefined ? null : await this.position(db, changelog.id, query.cursor);
    const rows = await repo.posts(db, this.database.dialect, changelog.id, after, count + 1);
    const page = rows.slice(0, count);
    const total = await repo.countPosts(db, changelog.id);
    const format = query.format ?? 'darkdown';
    const posts: PostList['posts'] = [];
    // One at a time: a large post renders in a worker thread, and a page of them must not take
    // every thread at once from the other requests.
    for (const row of page) {
      posts.push({ row, content: await this.renderer.content(row, format, changelog.variables) });
    }
    const last = page.at(-1);
    return serialisePostList({
      posts,
      total,
      cursor: rows.length > count && last !== undefined ? encodeCursor(last.id) : null,
    });
  }

  /** A changelog of the scope's project; another project's is as unknown as a missing one. */
  private async changelog(db: Executor, scope: Scope, id: number) {
    const changelog = await repo.findInProject(db, scope.project.id, id);
    if (!changelog) throw new NotFoundError(`Changelog ${id} not found.`);
    return changelog;
  }

  /** Where the cursor's post stands; a cursor of another changelog is not one this list gave. */
  private async position(db: Executor, changelogId: number, cursor: string): Promise<PostPosition> {
    const position = await repo.postPosition(db, changelogId, decodeCursor(cursor));
    if (!position) {
      throw new BadRequestError('query.cursor is not a cursor this list gave.', [
        { field: 'query.cursor', message: 'is not a cursor this list gave' },
      ]);
    }
    return position;
  }
}
