import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { UseCaseContext } from '../../auth/actor.ts';
import { bool } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { formatApiDate } from '../../shared/dates.ts';
import { reportRepository as repo, type RevisionUser, type SourceRow } from './versions.report.repository.ts';
import type { VersionReportPageSchema } from './versions.schemas.ts';
import type { VersionResolver } from './version-selector.ts';

export type VersionReportPage = Static<typeof VersionReportPageSchema>;

const NO_USER: RevisionUser = { id: null, email: null, name: null };
/** Clones of clones are followed back at most this many generations (a guard, not a real limit). */
const MAX_GENERATIONS = 1000;

/**
 * `GET /version/{id}/report` (N3): every page of a version with who made and last changed it (the
 * users recorded in its history) and when and by whom its first ancestor was made, following clones
 * back through each page's source.
 */
export class VersionReport {
  constructor(
    private readonly reader: Kysely<Database>,
    private readonly versions: VersionResolver,
  ) {}

  async pages(ctx: UseCaseContext, id: number, createdByEmail?: string): Promise<VersionReportPage[]> {
    const db = ctx.transaction ?? this.reader;
    const version = await this.versions.resolve(db, ctx.scope, { id });
    const pages = await repo.pages(db, version.id);
    const users = new Map((await repo.versionRevisionUsers(db, version.id)).map((u) => [u.page_id, u]));
    const origins = await this.origins(db, pages);
    const feedback = await repo.feedbackCounts(db, version.id);
    const wanted = createdByEmail?.trim().toLowerCase();
    const report: VersionReportPage[] = [];
    for (const page of pages) {
      const createdBy = users.get(page.id)?.first ?? NO_USER;
      if (wanted !== undefined && wanted !== '' && createdBy.email?.toLowerCase() !== wanted) continue;
      const origin = origins.get(page.id);
      report.push({
        id: page.id,
        title: page.title,
        hasDraft: bool(page.has_draft),
        listed: bool(page.listed),
        created: formatApiDate(page.created),
        createdBy,
        updated: formatApiDate(page.updated),
        updatedBy: users.get(page.id)?.last ?? NO_USER,
        sourceCreated: formatApiDate(origin?.created ?? page.created),
        sourceCreatedBy: origin?.user ?? createdBy,
        helpful: feedback.get(page.id)?.helpful ?? 0,
        notHelpful: feedback.get(page.id)?.notHelpful ?? 0,
      });
    }
    return report;
  }

  /**
   * The first ancestor of each cloned page (its source's source…, as far as the rows still exist),
   * read a generation at a time.
   */
  private async origins(
    db: Kysely<Database>,
    pages: ReadonlyArray<{ id: number; source_page_id: number | null }>,
  ): Promise<Map<number, SourceRow & { user: RevisionUser }>> {
    const known = new Map<number, SourceRow & { user: RevisionUser }>();
    let wanted = [...new Set(pages.flatMap((p) => (p.source_page_id === null ? [] : [p.source_page_id])))];
    for (let generation = 0; wanted.length > 0 && generation < MAX_GENERATIONS; generation++) {
      const rows = await repo.sources(db, wanted);
      for (const row of rows) known.set(row.id, row);
      wanted = [
        ...new Set(
          rows.flatMap((r) =>
            r.source_page_id === null || known.has(r.source_page_id) ? [] : [r.source_page_id],
          ),
        ),
      ];
    }
    const origins = new Map<number, SourceRow & { user: RevisionUser }>();
    for (const page of pages) {
      let origin: (SourceRow & { user: RevisionUser }) | undefined;
      let next = page.source_page_id;
      for (let steps = 0; next !== null && steps < MAX_GENERATIONS; steps++) {
        const row = known.get(next);
        if (row === undefined) break;
        origin = row;
        next = row.source_page_id;
      }
      if (origin !== undefined) origins.set(page.id, origin);
    }
    return origins;
  }
}
