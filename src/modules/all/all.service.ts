import type { Kysely } from 'kysely';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { entityTag } from '../../http/conditional.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { allJson, EMPTY_ALL_JSON } from './all.presenter.ts';
import { allRepository as repo, type AllFilter } from './all.repository.ts';

export interface AllQueryInput {
  /** true: only what readers can see */
  published?: boolean;
  /** one version by id, or `latest` for the default version */
  versionId?: number | 'latest';
}

export interface AllAnswer {
  /** the answer's strong entity tag */
  etag: string;
  /** the JSON text; null when the caller holds the current answer already (`fresh` said so) */
  body: string | Buffer | null;
}

/**
 * Bumped when the answer's format changes, so that tags handed out before a deploy that changed it
 * stop matching.
 */
const FORMAT = 'all/2';

export class AllService {
  constructor(
    private readonly reader: Kysely<Database>,
    private readonly versions: VersionsService,
  ) {}

  /**
   * Every version, section, reference and page of the project in four dictionaries, as JSON text. A
   * page is visible to readers when it is listed and its section and version are published; a section
   * or a reference when it and its version are published.
   *
   * The entity tag is derived before anything is listed, from what the answer depends on: the
   * project, the key's version scope, the query as resolved, and where the project's audit log stands
   * (see allRepository.auditPosition). When `fresh` accepts it (the client's If-None-Match names it),
   * nothing more is read or built.
   */
  async answer(
    ctx: UseCaseContext,
    input: AllQueryInput,
    fresh: (etag: string) => boolean = () => false,
  ): Promise<AllAnswer> {
    const scope = ctx.scope.versions === null ? null : [...ctx.scope.versions].sort((a, b) => a - b);
    const projectId = ctx.scope.project.id;
    // One snapshot for the tag and the four reads, so every page's section and every section's
    // version that the filter keeps is in its own dictionary too, and the tag names exactly what is
    // sent (SQLite's deferred transaction is a snapshot in WAL mode). It runs on the read connection:
    // a write committing meanwhile neither waits for it nor shows in it. Inside a caller's
    // transaction, that transaction is the snapshot (and sees its own writes).
    const snapshot = <T>(read: (trx: Executor) => Promise<T>): Promise<T> =>
      ctx.transaction
        ? read(ctx.transaction)
        : this.reader
            .transaction()
            .setIsolationLevel('repeatable read')
            .setAccessMode('read only')
            .execute(read);
    return snapshot(async (trx) => {
      let versionId: number | null = null;
      if (input.versionId !== undefined) {
        // 404 for an unknown version, 403 for one outside the key's scope.
        const selector = input.versionId === 'latest' ? { latest: true as const } : { id: input.versionId };
        versionId = (await this.versions.resolve(trx, ctx.scope, selector)).id;
      }
      const published = input.published === true;
      if (scope !== null && scope.length === 0) {
        const etag = entityTag(FORMAT, 'empty');
        return { etag, body: fresh(etag) ? null : EMPTY_ALL_JSON };
      }
      const position = await repo.auditPosition(trx, projectId);
      const etag = entityTag(
        FORMAT,
        projectId,
        scope === null ? null : scope.join(','),
        versionId,
        published,
        position,
      );
      if (fresh(etag)) return { etag, body: null };
      const filter: AllFilter = { projectId, versionId, scope, published };
      const versions = await repo.versions(trx, filter);
      const documentation = await repo.documentation(trx, filter);
      const references = await repo.references(trx, filter);
      const pagesJson = await repo.pagesJson(trx, filter);
      return { etag, body: allJson({ versions, documentation, references, pagesJson }) };
    });
  }
}
