import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { assertVersionInScope, type UseCaseContext } from '../../auth/actor.ts';
import type { Database } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { formatApiDate } from '../../shared/dates.ts';
import { decodeCursor, encodeCursor } from '../../shared/cursor.ts';
import type { RevisionListSchema, RevisionSchema } from './pages.history.schemas.ts';
import type { PageQueries } from './pages.reads.repository.ts';
import type { Executor } from '../../db/executor.ts';
import { packRevision, readHead, unpackRevision, type RevisionContents } from './history-packing.ts';
import { historyRepository as repo } from './pages.history.repository.ts';

export type Revision = Static<typeof RevisionSchema>;
export type RevisionList = Static<typeof RevisionListSchema>;

/** A page's history: every create, update and publish, numbered from 1 in the order they happened. */
export class PageHistory {
  constructor(
    private readonly reader: Kysely<Database>,
    private readonly queries: PageQueries,
  ) {}

  /** Newest first, `hits` at a time; the cursor stays valid while new revisions arrive. */
  async list(
    ctx: UseCaseContext,
    id: number,
    query: { hits?: number; cursor?: string },
  ): Promise<RevisionList> {
    const db = ctx.transaction ?? this.reader;
    await this.livePage(ctx, id);
    const hits = query.hits ?? 20;
    const beforeId = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const rows = await repo.revisions(db, id, beforeId, hits + 1);
    const page = rows.slice(0, hits);
    const total = await repo.countRevisions(db, id);
    const first = page[0];
    let number = first === undefined ? 0 : await repo.countRevisions(db, id, first.id);
    const data = page.map((row): Revision => ({
      revision: number--,
      operation: row.operation,
      message: row.message,
      title: row.title,
      slug: row.slug,
      created: formatApiDate(row.created),
      user:
        row.user_id === null || row.user_email === null || row.user_name === null
          ? null
          : { id: row.user_id, email: row.user_email, name: row.user_name },
    }));
    const last = page[page.length - 1];
    return {
      data,
      count: data.length,
      total,
      cursor: rows.length > hits && last ? encodeCursor(last.id) : null,
    };
  }

  /**
   * One revision's title, slug and contents; 404 for a number the page never reached. Contents packed
   * as a change (decision 0038) are rebuilt from the rows of its chain, read in one statement.
   */
  async revision(ctx: UseCaseContext, id: number, revision: number) {
    await this.livePage(ctx, id);
    const db = ctx.transaction ?? this.reader;
    const stored = await repo.revision(db, id, revision);
    if (!stored) throw new NotFoundError(`Page ${id} has no revision ${revision}.`);
    const { contents, ...row } = stored;
    if (contents === null) return row;
    const head = readHead(contents);
    const chain = new Map([[row.id, contents]]);
    if (head.chain > 0) {
      for (const step of await repo.packedBetween(db, id, head.wholeId, row.id)) {
        if (step.contents !== null) chain.set(step.id, step.contents);
      }
    }
    return { ...row, ...unpackRevision(row.id, chain) };
  }

  private async livePage(ctx: UseCaseContext, id: number): Promise<void> {
    const view = await this.queries.view(ctx.transaction, ctx.scope.project.id, id);
    if (!view) throw new NotFoundError(`Page ${id} not found.`);
    assertVersionInScope(ctx.scope, view.version_id);
  }
}

/**
 * A new revision's packed contents: the change from the page's newest revision when that one holds
 * `before`, whole otherwise (a page's first revision, a revision of an older build, a long chain).
 */
export async function packedContents(
  db: Executor,
  pageId: number,
  after: RevisionContents,
  before: RevisionContents | null,
): Promise<Buffer> {
  const newest = before === null ? undefined : await repo.newest(db, pageId);
  const base =
    newest === undefined || newest.head === null ? null : { id: newest.id, head: readHead(newest.head) };
  return packRevision(after, before, base);
}
