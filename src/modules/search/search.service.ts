import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { UseCaseContext } from '../../auth/actor.ts';
import { bumpChangeStamp } from '../../db/change-stamps.ts';
import type { Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { LruCache } from '../../shared/lru-cache.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { searchIndexRepository as indexRepository } from './search.index.repository.ts';
import type { SearchIndexer } from './search.indexer.ts';
import { presentHit } from './search.presenter.ts';
import { matchesNothing, parseQuery } from './search.query.ts';
import type { SearchFilter, SearchRepository } from './search.repository.ts';
import type { SearchInput, SearchResultSchema } from './search.schemas.ts';

export type SearchResult = Static<typeof SearchResultSchema>;

/**
 * Search content: what readers of the project can see, in the versions the key may read. Answers
 * are kept, serialised, under the project's change stamp (src/db/change-stamps.ts, decision 0024),
 * which every write to what a search finds moves, on whichever instance it was made: readers repeat
 * the same searches, and a repeated one then costs a map lookup while the project is unchanged.
 * Writes elsewhere (another project, a key's last use) keep them.
 */
export class SearchService {
  private readonly answers = new LruCache<{ stamp: string; body: string }>(
    5_000,
    16 * 1024 * 1024,
    (entry) => entry.body.length,
  );
  /** Lookups of the kept answers, for the metrics: one made under an older stamp is a miss. */
  private readonly lookups = { hits: 0, misses: 0 };

  constructor(
    private readonly db: Kysely<Database>,
    private readonly reader: Kysely<Database>,
    private readonly repository: SearchRepository,
    private readonly indexer: SearchIndexer,
    private readonly versions: VersionsService,
    /** the project's change stamp as committed now, or null: nothing kept or served */
    private readonly stamp: (projectId: number) => Promise<string | null>,
  ) {}

  /**
   * The search's JSON answer, from the kept answers when nothing changed since it was made. `read` is
   * the project's stamp when the caller has read it already, after its request arrived and before
   * anything of the answer (a site's request reads it first): it is then not read again.
   */
  async searchJson(ctx: UseCaseContext, input: SearchInput, read?: string | null): Promise<string> {
    const { project } = ctx.scope;
    // Read before anything of the answer is: a write committing meanwhile moves it, and the answer
    // kept under it is never served again.
    const stamp =
      ctx.transaction !== undefined ? null : read !== undefined ? read : await this.stamp(project.id);
    if (stamp === null) return JSON.stringify(await this.search(ctx, input));
    const key = JSON.stringify([
      project.id,
      // The answer names them; they are the project's settings, which move no stamp.
      project.basePath,
      project.host,
      ctx.scope.versions === null ? null : [...ctx.scope.versions].sort((a, b) => a - b),
      input.version_slug ?? null,
      input.documentation_slug ?? null,
      input.page ?? 0,
      input.hits ?? 20,
      input.query,
    ]);
    const kept = this.answers.get(key);
    if (kept !== undefined && kept.stamp === stamp) {
      this.lookups.hits += 1;
      return kept.body;
    }
    this.lookups.misses += 1;
    const body = JSON.stringify(await this.search(ctx, input));
    this.answers.set(key, { stamp, body });
    return body;
  }

  cacheStats(): { hits: number; misses: number } {
    return { ...this.lookups };
  }

  /**
   * Derives the index again from what is stored (`bin/quire search reindex`): one project, or every
   * one; each project in a transaction of its own.
   */
  async reindex(projectId?: number): Promise<{ projects: Array<{ id: number; entries: number }> }> {
    const ids = (await indexRepository.projectIds(this.db, projectId)).map((row) => row.id);
    if (projectId !== undefined && ids.length === 0)
      throw new NotFoundError(`Project ${projectId} not found.`);
    const projects: Array<{ id: number; entries: number }> = [];
    for (const id of ids) {
      const entries = await this.db.transaction().execute(async (trx) => {
        const made = await this.indexer.project(trx, id);
        // Answers kept from the former index are not served again, whichever process kept them.
        await bumpChangeStamp(trx, id);
        return made;
      });
      projects.push({ id, entries });
    }
    return { projects };
  }

  private async search(ctx: UseCaseContext, input: SearchInput): Promise<SearchResult> {
    const db = ctx.transaction ?? this.reader;
    const hitsPerPage = input.hits ?? 20;
    const page = input.page ?? 0;
    const filter = await this.filter(db, ctx, input);
    const query = parseQuery(input.query);
    const { total, entries } = matchesNothing(query)
      ? { total: 0, entries: [] }
      : await this.repository.search(db, query, filter, hitsPerPage, page * hitsPerPage);
    return {
      hits: entries.map(presentHit),
      nbHits: total,
      page,
      nbPages: Math.ceil(total / hitsPerPage),
      hitsPerPage,
      query: input.query,
      basepath: ctx.scope.project.basePath,
      host: ctx.scope.project.host,
    };
  }

  /** The versions (one, or those in the key's reach), sections and changelogs the search covers. */
  private async filter(db: Executor, ctx: UseCaseContext, input: SearchInput): Promise<SearchFilter> {
    let versionIds = ctx.scope.versions === null ? null : [...ctx.scope.versions];
    if (input.version_slug !== undefined) {
      const selector =
        input.version_slug === 'latest' ? { latest: true as const } : { slug: input.version_slug };
      versionIds = [(await this.versions.resolve(db, ctx.scope, selector)).id];
    }
    let documentationIds: number[] | null = null;
    if (input.documentation_slug !== undefined) {
      const sections = await this.repository.sectionIds(
        db,
        ctx.scope.project.id,
        input.documentation_slug,
        versionIds,
      );
      documentationIds = sections.map((row) => row.id);
    }
    // Posts belong to the project, not to a version: a key limited to some versions finds them too,
    // but naming a version or a section asks for that one's pages (and operations) alone.
    const posts = input.version_slug === undefined && input.documentation_slug === undefined;
    return { projectId: ctx.scope.project.id, versionIds, documentationIds, posts };
  }
}
