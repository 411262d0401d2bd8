import type { Kysely } from 'kysely';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { DialectName } from '../../db/dialect.ts';
import { int } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { pickSlug } from '../../db/siblings.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { assertVersionSlug, RESERVED_VERSION_SLUGS } from '../../shared/slug.ts';
import { assertNotBlank } from '../../shared/text.ts';
import { cloneRepository as clone } from './versions.clone.repository.ts';
import { presentVersion, type Version } from './versions.presenter.ts';
import { versionsRepository as repo } from './versions.repository.ts';
import type { VersionResolver } from './version-selector.ts';

export interface VersionCloneInput {
  name: string;
  slug?: string;
}

/**
 * `POST /version/{id}/clone` (N2): a copy of a version's sections, categories, pages and references in
 * one transaction, set-based (see versions.clone.repository.ts). The clone is unpublished and comes
 * first; links naming the source's slug name the clone's; each page remembers its source and gets a
 * first revision by whoever cloned it.
 */
export class VersionCloner {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    private readonly versions: VersionResolver,
    private readonly dialect: DialectName,
  ) {}

  async clone(ctx: UseCaseContext, id: number, input: VersionCloneInput): Promise<Version> {
    assertNotBlank('body.name', input.name);
    if (input.slug !== undefined) assertVersionSlug('body.slug', input.slug);
    const projectId = ctx.scope.project.id;
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      await repo.lockProject(trx, this.dialect, projectId);
      const source = await this.versions.resolve(trx, ctx.scope, { id });
      const slug = await pickSlug(trx, 'versions', projectId, {
        kind: 'version',
        explicit: input.slug,
        title: input.name,
        fallback: 'version',
        reserved: RESERVED_VERSION_SLUGS,
      });
      const at = toStoredDate(this.clock.now());
      await clone.shiftVersions(trx, projectId);
      const row = await repo.insert(trx, {
        project_id: projectId,
        name: input.name,
        slug,
        published: int(false),
        ordr: 0,
        deleted_at: null,
        created: at,
        updated: at,
      });
      const ids = { from: source.id, to: row.id, at };
      const documentation = await clone.sections(trx, ids);
      const categories = await clone.categories(trx, ids);
      const pages = await clone.pages(trx, ids, { from: source.slug, to: slug });
      const author = {
        apiKeyId: tx.actor.kind === 'key' ? tx.actor.keyId : null,
        userId: tx.actor.kind === 'key' ? (tx.actor.user?.id ?? null) : null,
      };
      await clone.history(trx, ids, {
        ...author,
        message: `Cloned from version '${source.name}'`,
      });
      const references = await clone.references(trx, ids);
      await clone.referenceRevisions(trx, ids, author);
      const version = presentVersion(row);
      await this.changes.record(tx, {
        type: 'version.cloned',
        projectId,
        version,
        source: presentVersion(source),
        copied: { documentation, categories, pages, references },
      });
      return version;
    });
  }
}
