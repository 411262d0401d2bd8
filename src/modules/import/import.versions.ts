import type { TransactionContext } from '../../auth/actor.ts';
import { pickSlug } from '../../db/siblings.ts';
import { AppError } from '../../errors.ts';
import { RESERVED_VERSION_SLUGS, slugify } from '../../shared/slug.ts';
import type { DocumentationService } from '../documentation/documentation.service.ts';
import type { FeedbackService } from '../feedback/feedback.service.ts';
import type { PagesService } from '../pages/pages.service.ts';
import { SectionMemo } from '../pages/pages.whole.ts';
import type { ReferencesService } from '../references/references.service.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { ArchiveError, type ArchiveFile, type ImportArchive } from './import.archive.ts';
import { importFeedback } from './import.feedback.ts';
import { parsePage } from './import.index.ts';
import { readMarkdocBody } from './import.markdoc.ts';
import type { MarkdocPlan, PlannedPage, PlannedVersion } from './import.plan.ts';
import type { ImportReport } from './import.report.ts';
import type { ImportWrites } from './import.stage.ts';

export const IMPORT_MESSAGE = 'Imported';

export interface ImportInput {
  /** `keep`: published bodies stay published; `draft`: everything arrives as drafts */
  published: 'keep' | 'draft';
  /** refuse the whole archive for one bad file (today's all-or-nothing), rather than skipping it */
  strict?: boolean;
  /** called as pages and references are written (the CLI draws a bar with it) */
  progress?: (done: number, total: number) => void;
}

/** One import under way: what every step of it reads and adds to. */
export interface ImportRun {
  archive: ImportArchive;
  input: ImportInput;
  legacyParts: boolean;
  markdoc: MarkdocPlan | undefined;
  report: ImportReport;
  /** where the versions are written */
  writes: ImportWrites;
  step: () => void;
}

/**
 * One planned version of an archive written as a new version of the project, through the same
 * services as the API (history, audit and search follow as for any change): its sections, categories
 * and pages depth first, its definitions and its feedback, each page whole where `run.writes` puts it.
 */
export class VersionImporter {
  constructor(
    private readonly versions: VersionsService,
    private readonly documentation: DocumentationService,
    private readonly pages: PagesService,
    private readonly references: ReferencesService,
    private readonly feedback: FeedbackService,
  ) {}

  async importVersion(run: ImportRun, planned: PlannedVersion): Promise<void> {
    const { report, writes } = run;
    const ctx = await writes.ctx();
    // Always a new version: a slug some version holds already is numbered instead (`v1-2`).
    // The slug every version's row holds counts, a deleted one's too (it keeps its slug for a restore).
    const slug =
      planned.slug === undefined
        ? undefined
        : await pickSlug(ctx.transaction, 'versions', ctx.scope.project.id, {
            kind: 'version',
            title: planned.slug,
            fallback: 'version',
            reserved: RESERVED_VERSION_SLUGS,
          });
    const version = await this.versions.create(ctx, {
      name: planned.name,
      ...(slug !== undefined ? { slug } : {}),
      published: planned.published,
    });
    writes.created(version.id);
    if (planned.slug !== undefined && slug !== planned.slug) {
      report.warnings.push({
        file: `${planned.folder}/`,
        message: `A version already has the slug '${planned.slug}': the new one is '${version.slug}'.`,
      });
    }
    report.versions.push({ id: version.id, name: version.name, slug: version.slug });

    for (const section of planned.sections) {
      const created = await this.documentation.create(await writes.ctx(), version.id, {
        title: section.title,
        ...(section.slug !== undefined ? { slug: section.slug } : {}),
        published: section.published,
      });
      report.documentation++;
      // The section's slugs (those the archive asks for are kept when free) and its place, read once.
      const sectionAt = { slugs: new Set<string>(), memo: new SectionMemo() };
      let categoryId: number | null = null;
      for (const entry of section.entries) {
        if (entry.kind === 'category') {
          const at = await writes.ctx();
          categoryId = (await this.documentation.createCategory(at, created.id, entry.title)).id;
          sectionAt.memo.forget(created.id);
          report.categories++;
          continue;
        }
        await this.importPage(run, created.id, entry, { categoryId, parentId: null }, sectionAt);
      }
    }

    for (const reference of planned.references) {
      const publish = reference.published && run.input.published === 'keep';
      const at = await writes.ctx();
      const stored = await this.storeReference(at, run, version.id, reference.file, publish);
      if (stored && reference.draft !== undefined) {
        await this.storeReference(at, run, version.id, reference.draft, false);
      }
      if (stored) report.references++;
      run.step();
      await writes.wrote(reference.file.size + (reference.draft?.size ?? 0));
    }
    await importFeedback(ctx, this.feedback, run.archive, planned.folder, version.id, report.warnings);
  }

  /**
   * A definition, checked as an upload is. One that is not valid is skipped with a warning (with
   * `strict`, it refuses the archive); the check comes before any write, so the transaction is whole.
   */
  private async storeReference(
    ctx: TransactionContext,
    run: ImportRun,
    versionId: number,
    file: ArchiveFile,
    publish: boolean,
  ): Promise<boolean> {
    try {
      await this.references.store(ctx, { versionId, publish, readFile: () => run.archive.read(file) });
      return true;
    } catch (error) {
      // The check's answer about the file (400, 422), never the archive's safety or the database.
      const skippable =
        run.input.strict !== true &&
        error instanceof AppError &&
        (error.status === 400 || error.status === 422) &&
        !(error instanceof ArchiveError);
      if (!skippable) throw error;
      run.report.warnings.push({
        file: file.path,
        message: `Not a definition Quire accepts (${error.message}): the file was skipped.`,
      });
      return false;
    }
  }

  /** A page and its children, depth first: created, published, given its pending draft and `listed`. */
  private async importPage(
    run: ImportRun,
    documentationId: number,
    planned: PlannedPage,
    at: { categoryId: number | null; parentId: number | null },
    section: { slugs: Set<string>; memo: SectionMemo },
  ): Promise<void> {
    const { slugs, memo } = section;
    const { input, report } = run;
    // A page of the Git format is its published body, in Markdoc.
    let { draft, published } =
      run.markdoc === undefined
        ? parsePage(planned.file, await run.archive.readText(planned.file), { legacyParts: run.legacyParts })
        : {
            draft: null,
            published: await readMarkdocBody(run.archive, planned.file, run.markdoc, report.warnings),
          };
    if (input.published === 'draft' && published !== null) {
      draft ??= published;
      published = null;
    }
    // Pages of a section may share a slug or a title (under other parents, or a copy the platform
    // kept): each is imported, the later ones under a slug made unique from the title.
    const wanted = planned.slug ?? slugify(planned.title, 'page');
    const slug = planned.slug !== undefined && !slugs.has(planned.slug) ? planned.slug : undefined;
    // A page is written whole in one step, in one insert.
    const page = await this.pages.createWhole(
      await run.writes.ctx(),
      documentationId,
      {
        title: planned.title,
        published,
        draft,
        message: IMPORT_MESSAGE,
        ...(slug !== undefined ? { slug } : {}),
        ...(planned.listed !== undefined ? { listed: planned.listed } : {}),
      },
      at,
      memo,
    );
    if (page.slug !== wanted) {
      report.warnings.push({
        file: planned.file.path,
        message: `Another page of the section has the slug '${wanted}': this one's is '${page.slug}'.`,
      });
    }
    slugs.add(page.slug);
    report.pages++;
    run.step();
    await run.writes.wrote((published?.length ?? 0) + (draft?.length ?? 0));
    for (const child of planned.children) {
      const place = { categoryId: at.categoryId, parentId: page.id };
      await this.importPage(run, documentationId, child, place, section);
    }
  }
}
