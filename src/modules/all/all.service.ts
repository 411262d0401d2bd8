import type { Kysely } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Database } from '../../db/schema.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import {
  byId,
  emptyAllProject,
  presentAllDocumentation,
  presentAllPage,
  presentAllReference,
  presentAllVersion,
  type AllProject,
} from './all.presenter.ts';
import { allRepository as repo, type AllFilter } from './all.repository.ts';

export interface AllQueryInput {
  /** true: only what readers can see */
  published?: boolean;
  /** one version by id, or `latest` for the default version */
  versionId?: number | 'latest';
}

export class AllService {
  constructor(
    private readonly reader: Kysely<Database>,
    private readonly versions: VersionsService,
  ) {}

  /**
   * Every version, section, reference and page of the project in four dictionaries. A page is
   * visible to readers when it is listed and its section and version are published; a section or a
   * reference when it and its version are published.
   */
  async list(ctx: UseCaseContext, input: AllQueryInput): Promise<AllProject> {
    const scope = ctx.scope.versions === null ? null : [...ctx.scope.versions];
    // One snapshot for the four reads, so every page's section and every section's version that the
    // filter keeps is in its own dictionary too (SQLite's deferred transaction is a snapshot in WAL mode).
    // It runs on the read connection: a write committing meanwhile neither waits for it nor shows in it.
    // Inside a caller's transaction, that transaction is the snapshot (and sees its own writes).
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
      if (scope !== null && scope.length === 0) return emptyAllProject();
      const filter: AllFilter = {
        projectId: ctx.scope.project.id,
        versionId,
        scope,
        published: input.published === true,
      };
      const versions = await repo.versions(trx, filter);
      const documentation = await repo.documentation(trx, filter);
      const references = await repo.references(trx, filter);
      const pages = await repo.pages(trx, filter);
      return {
        page: byId(pages, presentAllPage),
        documentation: byId(documentation, presentAllDocumentation),
        reference: byId(references, presentAllReference),
        version: byId(versions, presentAllVersion),
      };
    });
  }
}
