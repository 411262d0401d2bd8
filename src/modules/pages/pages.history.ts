import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { assertVersionInScope, type UseCaseContext } from '../../auth/actor.ts';
import type { Database } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { formatApiDate } from '../../shared/dates.ts';
import { decodeCursor, encodeCursor } from '../../shared/cursor.ts';
import type { RevisionListSchema, RevisionSchema } from './pages.history.schemas.ts';
import type { PageQueries } from './pages.reads.repository.ts';
import { pagesRepository as repo } from './pages.repository.ts';

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

  /** One revision's title, slug and contents; 404 for a number the page never reached. */
  async revision(ctx: UseCaseContext, id: number, revision: number) {
    await this.livePage(ctx, id);
    const row = await repo.revision(ctx.transaction ?? this.reader, id, revision);
    if (!row) throw new NotFoundError(`Page ${id} has no revision ${revision}.`);
    return row;
  }

  private async livePage(ctx: UseCaseContext, id: number): Promise<void> {
    const view = await this.queries.view(ctx.transaction, ctx.scope.project.id, id);
    if (!view) throw new NotFoundError(`Page ${id} not found.`);
    assertVersionInScope(ctx.scope, view.version_id);
  }
}
