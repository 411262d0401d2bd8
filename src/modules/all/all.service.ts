import { PostgresAdapter, type Kysely } from 'kysely';
import type { Readable } from 'node:stream';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { entityTag } from '../../shared/entity-tags.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { idRanges, streamListing } from './all.parts.ts';
import { versionStructure, type Structure } from './all.structure.ts';
import { allJson, allJsonTail, EMPTY_ALL_JSON } from './all.presenter.ts';
import { allRepository as repo, type AllFilter, type PageIdRange } from './all.repository.ts';

export interface AllQueryInput {
  /** true: only what readers can see */
  published?: boolean;
  /** one version by id, or `latest` for the default version */
  versionId?: number | 'latest';
}

export interface AllAnswer {
  /** the answer's strong entity tag */
  etag: string;
  /**
   * the JSON text, or a stream of it written while it is sent; null when the caller holds the
   * current answer already (`fresh` said so)
   */
  body: string | Buffer | Readable | null;
  /**
   * with a stream: settles when all of it is written, rejecting with what cut it short (the stream
   * is then destroyed)
   */
  done?: Promise<void>;
}

/**
 * Bumped when the answer's format changes, so that tags handed out before a deploy that changed it
 * stop matching.
 */
const FORMAT = 'all/2';

/** How a big page dictionary is written on PostgreSQL (see AllService.split). */
export interface AllOptions {
  /** how many connections write it at once (default 2; 1: in one query) */
  connections?: number;
  /** in how many id ranges (default 8) */
  ranges?: number;
  /** from how many ids the pages table spans (default 20,000) */
  splitFrom?: number;
  /** by how many requests of the service at most at once; others use one query (default 2) */
  maxSplitting?: number;
}

/** What building the answer gave: with a stream, what is still being written into it. */
interface Built {
  answer: AllAnswer;
  first?: Promise<void>;
  done?: Promise<void>;
}

export class AllService {
  private readonly connections: number;
  private readonly ranges: number;
  private readonly splitFrom: number;
  private readonly maxSplitting: number;
  /** requests whose page dictionary is being written in ranges */
  private splitting = 0;

  constructor(
    private readonly reader: Kysely<Database>,
    private readonly versions: VersionsService,
    options: AllOptions = {},
  ) {
    this.connections = Math.max(1, Math.floor(options.connections ?? 2));
    this.ranges = Math.max(this.connections, Math.floor(options.ranges ?? 8));
    this.splitFrom = options.splitFrom ?? 20_000;
    this.maxSplitting = options.maxSplitting ?? 2;
  }

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
    // One snapshot for the tag and the four reads, so every page's section and every section's
    // version that the filter keeps is in its own dictionary too, and the tag names exactly what is
    // sent (SQLite's deferred transaction is a snapshot in WAL mode). It runs on the read connection:
    // a write committing meanwhile neither waits for it nor shows in it. Inside a caller's
    // transaction, that transaction is the snapshot (and sees its own writes).
    if (ctx.transaction) return (await this.build(ctx.transaction, ctx, input, fresh, false)).answer;
    let built!: (value: Built) => void;
    const ready = new Promise<Built>((resolve) => (built = resolve));
    // A streamed answer keeps its transaction open until the last part is written.
    const transaction = this.reader
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        const value = await this.build(trx, ctx, input, fresh, true);
        built(value);
        await value.done;
      });
    const { answer, first } = await Promise.race([ready, transaction.then(() => ready)]);
    if (first === undefined) {
      await transaction;
      return answer;
    }
    try {
      // Until the first part is written, a failure is still the request's error answer.
      await first;
    } catch (error) {
      await transaction.catch(() => undefined);
      throw error;
    }
    return { ...answer, done: transaction };
  }

  /** One version's sections, pages and references, without contents (see all.structure.ts). */
  structure(ctx: UseCaseContext, versionSlug: string): Promise<Structure> {
    return versionStructure(ctx.transaction ?? this.reader, this.versions, ctx, versionSlug);
  }

  private async build(
    trx: Executor,
    ctx: UseCaseContext,
    input: AllQueryInput,
    fresh: (etag: string) => boolean,
    own: boolean,
  ): Promise<Built> {
    const scope = ctx.scope.versions === null ? null : [...ctx.scope.versions].sort((a, b) => a - b);
    const projectId = ctx.scope.project.id;
    let versionId: number | null = null;
    if (input.versionId !== undefined) {
      // 404 for an unknown version, 403 for one outside the key's scope.
      const selector = input.versionId === 'latest' ? { latest: true as const } : { id: input.versionId };
      versionId = (await this.versions.resolve(trx, ctx.scope, selector)).id;
    }
    const published = input.published === true;
    if (scope !== null && scope.length === 0) {
      const etag = entityTag(FORMAT, 'empty');
      return { answer: { etag, body: fresh(etag) ? null : EMPTY_ALL_JSON } };
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
    if (fresh(etag)) return { answer: { etag, body: null } };
    const filter: AllFilter = { projectId, versionId, scope, published };
    const ranges = own ? await this.split(trx) : null;
    if (ranges === null) {
      const versions = await repo.versions(trx, filter);
      const documentation = await repo.documentation(trx, filter);
      const references = await repo.references(trx, filter);
      const pagesJson = await repo.pagesJson(trx, filter);
      return { answer: { etag, body: allJson({ versions, documentation, references, pagesJson }) } };
    }
    try {
      const snapshot = await repo.exportSnapshot(trx);
      const tail = (async () =>
        allJsonTail({
          versions: await repo.versions(trx, filter),
          documentation: await repo.documentation(trx, filter),
          references: await repo.references(trx, filter),
        }))();
      const job = { trx, reader: this.reader, snapshot, filter, ranges, connections: this.connections };
      const { body, first, done } = streamListing(job, tail);
      const finished = done.finally(() => this.splitting--);
      return { answer: { etag, body }, first, done: finished };
    } catch (error) {
      this.splitting--;
      throw error;
    }
  }

  /**
   * Writing the page dictionary is most of the time of a big listing, nearly all of it the
   * database's CPU, and it is one text that the answer cannot start without. On PostgreSQL, in a
   * transaction of its own, it is written in id ranges instead, by more than one connection at once
   * in one snapshot (all.parts.ts), and sent as they come. The ranges divide the table's id span
   * evenly, which divides a big project's pages about evenly (ids grow with time); a project whose
   * pages sit in a few ranges is answered as fast as in one query. Null (one query, on the
   * transaction's connection): SQLite, a small table, one connection, or too many requests doing
   * this already. Otherwise the request counts as splitting until its last range is written.
   */
  private async split(trx: Executor): Promise<PageIdRange[] | null> {
    const postgres = trx.getExecutor().adapter instanceof PostgresAdapter;
    if (!postgres || this.connections < 2 || this.splitting >= this.maxSplitting) return null;
    const span = await repo.pageIdSpan(trx);
    if (span === null || span.last - span.first + 1 < this.splitFrom) return null;
    // Counted without an await between the check and the count.
    if (this.splitting >= this.maxSplitting) return null;
    this.splitting++;
    return idRanges(span.first, span.last, this.ranges);
  }
}
