import type { Kysely } from 'kysely';
import type { TransactionContext, UseCaseContext } from '../../auth/actor.ts';
import type { Database } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { ForbiddenError } from '../../errors.ts';
import type { ChangeRecorder } from '../../events/change-recorder.ts';
import { RESERVED_VERSION_SLUGS } from '../../shared/slug.ts';
import { pickSlug } from '../../db/siblings.ts';
import type { DocumentationService } from '../documentation/documentation.service.ts';
import type { PagesService } from '../pages/pages.service.ts';
import type { ReferencesService } from '../references/references.service.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { ImportArchive } from './import.archive.ts';
import { parsePage } from './import.index.ts';
import { readLayout } from './import.layout.ts';
import type { ImportWarning, PlannedPage, PlannedVersion } from './import.plan.ts';

export const IMPORT_MESSAGE = 'Imported';

export interface ImportInput {
  /** `keep`: published bodies stay published; `draft`: everything arrives as drafts */
  published: 'keep' | 'draft';
  /** set by the import itself: a Quire export of format version 1, read by its own part rule */
  legacyParts?: boolean;
  /** called as pages and references are written (the CLI draws a bar with it) */
  progress?: (done: number, total: number) => void;
}

export interface ImportReport {
  versions: Array<{ id: number; name: string; slug: string }>;
  documentation: number;
  categories: number;
  pages: number;
  references: number;
  warnings: ImportWarning[];
}

/**
 * Import (extensions.md §3): an archive in the export layout becomes new versions of the project, in
 * one transaction through the same services as the API, so history, audit and search follow as for
 * any change. The archive is checked whole before the transaction opens.
 */
export class ImportService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly changes: ChangeRecorder,
    private readonly versions: VersionsService,
    private readonly documentation: DocumentationService,
    private readonly pages: PagesService,
    private readonly references: ReferencesService,
  ) {}

  async import(ctx: UseCaseContext, bytes: Buffer, input: ImportInput): Promise<ImportReport> {
    if (ctx.scope.versions !== null) {
      throw new ForbiddenError(
        'An import adds versions: it needs a key that reaches every version of the project.',
      );
    }
    // An If-Match sent with the import names no resource it writes.
    const { ifMatch: _ifMatch, ...own } = ctx;
    ctx = own;
    const archive = await ImportArchive.open(bytes);
    try {
      const plan = await readLayout(archive);
      const total = plan.pages + plan.versions.reduce((n, v) => n + v.references.length, 0);
      let done = 0;
      const step = (): void => {
        done++;
        input.progress?.(done, total);
      };
      input.progress?.(0, total);
      return await inTransaction(this.db, ctx, async (tx) => {
        const report: ImportReport = {
          versions: [],
          documentation: 0,
          categories: 0,
          pages: 0,
          references: 0,
          warnings: [...plan.warnings],
        };
        for (const planned of plan.versions) {
          await this.importVersion(
            tx,
            archive,
            planned,
            { ...input, legacyParts: plan.legacyParts },
            report,
            step,
          );
        }
        // Last, in the same transaction: whoever follows changes learns the import is whole.
        await this.changes.record(tx, { type: 'import.completed', projectId: tx.scope.project.id, report });
        return report;
      });
    } finally {
      archive.close();
    }
  }

  private async importVersion(
    ctx: TransactionContext,
    archive: ImportArchive,
    planned: PlannedVersion,
    input: ImportInput,
    report: ImportReport,
    step: () => void,
  ): Promise<void> {
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
    if (planned.slug !== undefined && slug !== planned.slug) {
      report.warnings.push({
        file: `${planned.folder}/`,
        message: `A version already has the slug '${planned.slug}': the new one is '${version.slug}'.`,
      });
    }
    report.versions.push({ id: version.id, name: version.name, slug: version.slug });

    for (const section of planned.sections) {
      const created = await this.documentation.create(ctx, version.id, {
        title: section.title,
        ...(section.slug !== undefined ? { slug: section.slug } : {}),
        published: section.published,
      });
      report.documentation++;
      const slugs = new Set<string>();
      let categoryId: number | null = null;
      for (const entry of section.entries) {
        if (entry.kind === 'category') {
          categoryId = (await this.documentation.createCategory(ctx, created.id, entry.title)).id;
          report.categories++;
          continue;
        }
        await this.importPage(
          ctx,
          archive,
          created.id,
          entry,
          { categoryId, parentId: null },
          slugs,
          input,
          report,
          step,
        );
      }
    }

    for (const reference of planned.references) {
      const publish = reference.published && input.published === 'keep';
      await this.references.store(ctx, {
        versionId: version.id,
        publish,
        readFile: () => archive.read(reference.file),
      });
      if (reference.draft !== undefined) {
        const draft = reference.draft;
        await this.references.store(ctx, {
          versionId: version.id,
          publish: false,
          readFile: () => archive.read(draft),
        });
      }
      report.references++;
      step();
    }
  }

  /** A page and its children, depth first: created, published, given its pending draft and `listed`. */
  private async importPage(
    ctx: UseCaseContext,
    archive: ImportArchive,
    documentationId: number,
    planned: PlannedPage,
    at: { categoryId: number | null; parentId: number | null },
    slugs: Set<string>,
    input: ImportInput,
    report: ImportReport,
    step: () => void,
  ): Promise<void> {
    const file = parsePage(planned.file, await archive.readText(planned.file), {
      legacyParts: input.legacyParts === true,
    });
    let { draft, published } = file;
    if (input.published === 'draft' && published !== null) {
      draft ??= published;
      published = null;
    }
    let slug = planned.slug;
    if (slug !== undefined && slugs.has(slug)) {
      report.warnings.push({
        file: planned.file.path,
        message: `Another page of the section has the slug '${slug}': this one's was made from its title.`,
      });
      slug = undefined;
    }
    let page = await this.pages.create(
      ctx,
      documentationId,
      {
        title: planned.title,
        content: published ?? draft ?? '',
        message: IMPORT_MESSAGE,
        ...(slug !== undefined ? { slug } : {}),
      },
      at,
    );
    if (published !== null) {
      page = await this.pages.publish(ctx, page.id);
      if (draft !== null)
        page = await this.pages.update(ctx, page.id, { content: draft, message: IMPORT_MESSAGE });
    }
    if (planned.listed !== undefined && planned.listed !== page.listed) {
      page = await this.pages.update(ctx, page.id, { listed: planned.listed, message: IMPORT_MESSAGE });
    }
    slugs.add(page.slug);
    report.pages++;
    step();
    for (const child of planned.children) {
      await this.importPage(
        ctx,
        archive,
        documentationId,
        child,
        { categoryId: at.categoryId, parentId: page.id },
        slugs,
        input,
        report,
        step,
      );
    }
  }
}
