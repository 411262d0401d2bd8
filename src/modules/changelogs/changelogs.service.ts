import type { Kysely } from 'kysely';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/schema.ts';
import { pickSlug } from '../../db/siblings.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { ChangeRecorder } from '../../events/change-recorder.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { assertSlug } from '../../shared/slug.ts';
import { assertNotBlank } from '../../shared/text.ts';
import { presentChangelog, type Changelog } from './changelogs.presenter.ts';
import { changelogsRepository as repo } from './changelogs.repository.ts';

export interface ChangelogCreateInput {
  title: string;
  slug?: string;
}

/** Changelogs: a project's feeds of posts. The posts themselves come with their own operations. */
export class ChangelogsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
  ) {}

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
