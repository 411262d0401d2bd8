import type { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { canSeeVersion, may, type UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import { bool, type Executor } from '../../db/executor.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import { PlanUpgradeRequiredError } from '../../errors.ts';
import {
  ContentError,
  renderMarkdown,
  writeIndexEntryFile,
  writePageFile,
  type RenderContext,
} from '../../content/index.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { parseVariables } from '../../shared/serialised.ts';
import type { FeedbackService } from '../feedback/feedback.service.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { exportFeedback, FEEDBACK_FILE } from './export.feedback.ts';
import { packFile, ZipWriter, type PackedFile } from './zip-writer.ts';
import { SiblingNames, safeSegment } from './archive-names.ts';
import { exportRepository as repo, type ExportVersion } from './export.repository.ts';
import type { ExportManifest, ManifestVersion } from './export.manifest.ts';
import { sectionIndex, SETTINGS, type IndexFile } from './export.index.ts';
import { writeGitLayout } from './export.git-layout.ts';

export interface ExportInput {
  format: 'darkdown' | 'markdown' | 'markdoc';
  /** one version by slug (`latest`: the default version); otherwise every version within the key's reach */
  versionSlug?: string | undefined;
}

/** The formats of Quire's own layout; `markdoc` writes the platform's (export.git-layout.ts). */
type ExportFormat = 'darkdown' | 'markdown';

export interface OpenExport {
  /** the archive's bytes, as they are made */
  stream: Readable;
  /** settles when the archive is complete, or with the error (an abort included) that cut it short */
  done: Promise<void>;
}

/**
 * Page contents are read this many pages at a time, in archive order. Reading, framing and deflating
 * a batch is synchronous work (SQLite and small deflates do not wait), a few milliseconds; other
 * requests get their turn between batches.
 */
const CONTENTS_BATCH = 20;
/** Names no section folder may take: the version's references live beside them. */
const REFS = 'refs';
const MANIFEST = 'manifest.json';

/** Where the export's files go: one at a time, or packed ahead in batches. */
interface Output {
  add(name: string, bytes: Buffer): Promise<void>;
  write(file: PackedFile): Promise<void>;
  signal: AbortSignal;
}

/**
 * The export (decisions.md §6): a ZIP of the project, written while it is sent, from one snapshot of
 * the database. Memory stays bounded: page contents are read a batch at a time and the archive takes
 * new files only as fast as the client takes bytes (ZipWriter).
 */
export class ExportService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly versions: VersionsService,
    private readonly clock: Clock,
    private readonly feedback: FeedbackService,
  ) {}

  /**
   * Checks what can fail before a byte is sent (the plan, the version), then streams. `signal`
   * aborts the work: the client went away.
   */
  async open(ctx: UseCaseContext, input: ExportInput, signal: AbortSignal): Promise<OpenExport> {
    if (ctx.scope.project.plan !== 'enterprise') throw new PlanUpgradeRequiredError('The export');
    const mtime = new Date(this.clock.now());
    const zip = new ZipWriter(mtime);
    // The client went away: the stream closes, and the next write or check ends the work.
    signal.addEventListener('abort', () => zip.output.destroy(), { once: true });
    const add = async (name: string, bytes: Buffer): Promise<void> => {
      signal.throwIfAborted();
      await zip.write(await packFile(name, bytes));
    };
    let started!: () => void;
    const ready = new Promise<void>((resolve) => (started = resolve));
    const done = this.database.snapshot(async (db) => {
      const versions = await this.chosenVersions(db, ctx, input.versionSlug);
      started();
      if (input.format === 'markdoc') {
        // The platform's Git layout: its own files, no manifest (the importer reads none).
        await writeGitLayout(db, ctx.scope.project, versions, add, signal);
        signal.throwIfAborted();
        await zip.finish();
        return;
      }
      const format = input.format;
      const manifest: ExportManifest = {
        kind: 'quire-export',
        formatVersion: 2,
        exported: toStoredDate(mtime.getTime()),
        project: { id: ctx.scope.project.id, name: ctx.scope.project.name },
        contentFormat: format,
        versions: [],
        counts: { versions: 0, documentation: 0, categories: 0, pages: 0, references: 0 },
        warnings: [],
      };
      const variables = parseVariables(await repo.variables(db, ctx.scope.project.id));
      const folders = new SiblingNames([MANIFEST]);
      const out: Output = {
        add,
        write: (file) => {
          signal.throwIfAborted();
          return zip.write(file);
        },
        signal,
      };
      for (const version of versions) {
        const folder = folders.claim(safeSegment(version.name, 'version'));
        manifest.versions.push(
          await this.writeVersion(db, out, manifest, version, folder, format, variables),
        );
        // Readers' feedback goes only to a key that may read it (decision 0031).
        if (may(ctx.actor, 'feedback.read')) await exportFeedback(db, this.feedback, add, folder, version.id);
      }
      await add(MANIFEST, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8'));
      signal.throwIfAborted();
      await zip.finish();
    });
    // A failure before the first file (an unknown version) is the request's error answer.
    await Promise.race([ready, done]);
    return { stream: zip.output, done };
  }

  private async chosenVersions(
    db: Executor,
    ctx: UseCaseContext,
    slug: string | undefined,
  ): Promise<ExportVersion[]> {
    if (slug !== undefined) {
      const row = await this.versions.resolve(db, ctx.scope, slug === 'latest' ? { latest: true } : { slug });
      return [{ id: row.id, name: row.name, slug: row.slug, published: row.published }];
    }
    const rows = await repo.versions(db, ctx.scope.project.id);
    return rows.filter((v) => canSeeVersion(ctx.scope, v.id));
  }

  private async writeVersion(
    db: Executor,
    out: Output,
    manifest: ExportManifest,
    version: ExportVersion,
    folder: string,
    format: ExportFormat,
    variables: Readonly<Record<string, unknown>>,
  ): Promise<ManifestVersion> {
    const sections = await repo.sections(db, version.id);
    const categories = await repo.categories(db, version.id);
    const pages = await repo.pages(db, version.id);
    const entry: ManifestVersion = {
      id: version.id,
      name: version.name,
      slug: version.slug,
      published: bool(version.published),
      folder,
      documentation: [],
      references: [],
    };
    manifest.counts.versions++;

    const slugOfSection = new Map(sections.map((s) => [s.id, s.slug]));
    // Titles for `[auto$]` links: only a Markdown export renders them.
    const ctx: RenderContext = {
      variables,
      pageTitles: new Map(
        format !== 'markdown'
          ? []
          : pages.map((p) => [`${slugOfSection.get(p.documentation_id) ?? ''}/${p.slug}`, p.title]),
      ),
    };
    const sectionFolders = new SiblingNames([REFS, FEEDBACK_FILE]);
    for (const [index, section] of sections.entries()) {
      const sectionFolder = sectionFolders.claim(safeSegment(section.title, 'documentation'));
      const dir = `${folder}/${sectionFolder}`;
      const settings = {
        title: section.title,
        slug: section.slug,
        published: bool(section.published),
        position: index + 1,
      };
      await out.add(`${dir}/${SETTINGS}`, Buffer.from(`${JSON.stringify(settings, null, 2)}\n`, 'utf8'));
      const files = sectionIndex(dir, section, categories, pages);
      const pageCount = files.filter((f) => f.kind === 'page').length;
      entry.documentation.push({
        id: section.id,
        title: section.title,
        slug: section.slug,
        published: bool(section.published),
        folder: sectionFolder,
        categories: files.length - pageCount,
        pages: pageCount,
      });
      manifest.counts.documentation++;
      manifest.counts.categories += files.length - pageCount;
      manifest.counts.pages += pageCount;
      await this.writeIndex(db, out, manifest, files, format, ctx);
    }

    for (const reference of await repo.references(db, version.id)) {
      const published = bool(reference.published) && reference.format_published !== null;
      const mainFormat = published ? reference.format_published : reference.format_draft;
      if (mainFormat === null) continue;
      const file = `${REFS}/${reference.slug}.${mainFormat}`;
      const text = await repo.definition(db, reference.id, !published);
      if (text === null) continue;
      await out.add(`${folder}/${file}`, Buffer.from(text, 'utf8'));
      let draftFile: string | undefined;
      if (published && reference.format_draft !== null) {
        const draft = await repo.definition(db, reference.id, true);
        if (draft !== null) {
          draftFile = `${REFS}/drafts/${reference.slug}.${reference.format_draft}`;
          await out.add(`${folder}/${draftFile}`, Buffer.from(draft, 'utf8'));
        }
      }
      entry.references.push({
        id: reference.id,
        title: reference.title,
        slug: reference.slug,
        published,
        file,
        ...(draftFile !== undefined ? { draftFile } : {}),
      });
      manifest.counts.references++;
    }
    return entry;
  }

  /** The files of a section's index, their page contents read a batch at a time. */
  private async writeIndex(
    db: Executor,
    out: Output,
    manifest: ExportManifest,
    files: readonly IndexFile[],
    format: ExportFormat,
    ctx: RenderContext,
  ): Promise<void> {
    for (let start = 0; start < files.length; start += CONTENTS_BATCH) {
      await setImmediate();
      out.signal.throwIfAborted();
      const batch = files.slice(start, start + CONTENTS_BATCH);
      const ids = batch.flatMap((f) => (f.kind === 'page' ? [f.page.id] : []));
      const contents = new Map((await repo.contents(db, ids)).map((c) => [c.id, c]));
      const texts: Array<[string, Buffer]> = [];
      for (const file of batch) {
        if (file.kind === 'category') {
          const text = writeIndexEntryFile({ type: 'category', title: file.category.title });
          texts.push([file.path, Buffer.from(text, 'utf8')]);
          continue;
        }
        const { page } = file;
        const stored = contents.get(page.id);
        const body = (text: string | null | undefined): string | null =>
          text === null || text === undefined
            ? null
            : format === 'markdown'
              ? renderMarkdown(text, ctx)
              : text;
        const meta = { type: 'page', title: page.title, slug: page.slug, listed: bool(page.listed) };
        const draft = body(stored?.content_draft);
        const published = body(stored?.content_published);
        let text: string;
        try {
          text = writePageFile({ meta, draft, published });
        } catch (error) {
          if (!(error instanceof ContentError)) throw error;
          // The one body a page file cannot hold: a draft with a `---published` line of its own.
          text = writePageFile({ meta, draft: null, published });
          manifest.warnings.push({ file: file.path, message: `The draft was left out: ${error.message}.` });
        }
        texts.push([file.path, Buffer.from(text, 'utf8')]);
      }
      const packed = await Promise.all(texts.map(([name, bytes]) => packFile(name, bytes)));
      for (const file of packed) await out.write(file);
    }
  }
}
