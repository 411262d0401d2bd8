import type { Kysely } from 'kysely';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import type { Database } from '../../db/schema.ts';
import { pickSlug } from '../../db/siblings.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { assertSlug } from '../../shared/slug.ts';
import { assertNotBlank } from '../../shared/text.ts';
import type { PostRenderer, PostSource } from '../pages/post-renderer.ts';
import { utf8Text } from '../../shared/serialised.ts';
import { ChangelogPostsService } from './changelog-posts.service.ts';
import { presentChangelog, type Changelog, type ChangelogPost } from './changelogs.presenter.ts';
import { changelogsRepository as repo } from './changelogs.repository.ts';
import type { ChangelogPostCreateInput, ChangelogPostListInput } from './changelogs.schemas.ts';

export interface ChangelogCreateInput {
  title: string;
  slug?: string;
}

/** Changelogs: a project's feeds of posts; the posts' own use cases are in ChangelogPostsService. */
export class ChangelogsService {
  private readonly db: Kysely<Database>;
  private readonly posts: ChangelogPostsService;

  constructor(
    database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    private readonly renderer: PostRenderer,
  ) {
    this.db = database.db;
    this.posts = new ChangelogPostsService(database, clock, changes, renderer);
  }

  /** `POST /changelog/{id}/post` (N5). */
  createPost(
    ctx: UseCaseContext,
    changelogId: number,
    input: ChangelogPostCreateInput,
  ): Promise<ChangelogPost> {
    return this.posts.create(ctx, changelogId, input);
  }

  /** `GET /changelog/{id}/post` (N6): the serialised answer. */
  listPostsJson(
    ctx: UseCaseContext,
    changelogId: number,
    query: ChangelogPostListInput,
  ): Promise<string | Buffer> {
    return this.posts.listJson(ctx, changelogId, query);
  }

  /**
   * A post's contents as the engine's sanitised HTML, rendered and kept as the API's are: what the
   * reader site shows of a post it has read as readers see it.
   */
  async postHtml(post: PostSource, variables: string): Promise<string> {
    const html = await this.renderer.content(post, 'html', variables);
    return typeof html === 'string' ? html : (JSON.parse(utf8Text(html.bytes)) as string);
  }

  /** A changelog of the scope's project; its slug unique in the project. */
  async create(ctx: UseCaseContext, input: ChangelogCreateInput): Promise<Changelog> {
    assertNotBlank('title', input.title);
    if (input.slug !== undefined) assertSlug('slug', input.slug);
    const projectId = ctx.scope.project.id;
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      const slug = await pickSlug(trx, 'changelogs', projectId, {
        kind: 'changelog',
        explicit: input.slug,
        title: input.title,
        fallback: 'changelog',
      });
      const now = toStoredDate(this.clock.now());
      const changelog = presentChangelog(
        await repo.insert(trx, {
          project_id: projectId,
          title: input.title,
          slug,
          created: now,
          updated: now,
        }),
      );
      await this.changes.record(tx, { type: 'changelog.created', projectId, changelog });
      return changelog;
    });
  }
}
