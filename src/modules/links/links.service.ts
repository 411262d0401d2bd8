import { setImmediate } from 'node:timers/promises';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import { bool, type Executor } from '../../db/executor.ts';
import { LruCache } from '../../shared/lru-cache.ts';
import { parseVariables } from '../../shared/serialised.ts';
import type { WorkerPool } from '../../workers/pool.ts';
import type { VersionRow, VersionsService } from '../versions/versions.service.ts';
import { LinkIndex, type PageEntry, type ReferenceEntry } from './link-index.ts';
import type { ContentScan } from '../../content/link-scan.ts';
import { linkScansRepository as stored } from './link-scans.repository.ts';
import type { LinkScanWarmer } from './link-scans.warmer.ts';
import { LinkAnalyser, type ReferenceAnchors } from './links.analyser.ts';
import { linksRepository as repo, type LinkContentRow } from './links.repository.ts';
import { ContentScanner, reportTask, scanWeight, type PendingScan } from './links.scanner.ts';
import type { BrokenLink } from './links.schemas.ts';

/** Pages whose contents one query reads. */
const CONTENTS_BATCH = 250;
/** Scans kept between reports: a few large versions' worth, a few tens of megabytes at most. */
const CACHED_SCANS = 100_000;
const CACHED_CHARS = 32 * 1024 * 1024;

/**
 * The broken-links report of a version (extensions N4): every link in the draft and published
 * contents of its live pages, checked against the version's own pages, headings and references.
 * Everything is read from one snapshot; nothing outside the database is ever fetched.
 */
export class BrokenLinksService {
  /** scans by source and project variables: a report after a few edits scans only what changed */
  private readonly scans = new LruCache<ContentScan>(CACHED_SCANS, CACHED_CHARS, scanWeight);

  constructor(
    private readonly database: DatabaseHandle,
    private readonly versions: VersionsService,
    private readonly workers: WorkerPool,
    /** stores, in the background, the scans a report had to make */
    private readonly warmer: LinkScanWarmer,
  ) {}

  async report(ctx: UseCaseContext, versionId: number): Promise<BrokenLink[]> {
    const { findings, made } = await this.database.snapshot(async (db) => {
      // 404 for an unknown version or another project's, 403 outside the key's version scope.
      const version = await this.versions.resolve(db, ctx.scope, { id: versionId });
      const variables = parseVariables(await repo.variables(db, ctx.scope.project.id));
      const { index, pages } = await this.index(db, ctx.scope.project.id, version);
      const analyser = new LinkAnalyser(index);
      const record = (item: PendingScan, scan: ContentScan): void => {
        const anchors = new Set(scan.anchors);
        if (item.isDraft) item.page.anchors.draft = anchors;
        else item.page.anchors.published = anchors;
        analyser.add(item.page, item.isDraft, scan.links, anchors);
      };
      const scanner = new ContentScanner(
        this.workers,
        this.scans,
        variables,
        contentsOf(db, pages),
        (keys) => stored.find(db, keys, this.warmer.refreshBefore()),
        record,
      );
      await scanner.run();
      const operations = await this.referenceAnchors(db, analyser.referencesWithFragments());
      return { findings: analyser.report(operations), made: scanner.made };
    });
    // Stored after the answer, through the writer, without the answer waiting: contents Quire did
    // not write (direct inserts, a restored backup), or whose background scan failed or is still to
    // come. Best effort: a failure only means a later report scans them again.
    this.warmer.store(made);
    return findings;
  }

  /** What links are checked against: the version's live sections, pages and references. */
  private async index(
    db: Executor,
    projectId: number,
    version: VersionRow,
  ): Promise<{ index: LinkIndex; pages: PageEntry[] }> {
    const versions = await repo.versions(db, projectId);
    const sections = (await repo.sections(db, version.id)).map((s) => ({
      slug: s.slug,
      title: s.title,
      published: bool(s.published),
    }));
    const rows = (await repo.pages(db, version.id)).sort((a, b) => a.id - b.id);
    const pages: PageEntry[] = rows.map((p) => ({
      id: p.id,
      title: p.title,
      slug: p.slug,
      listed: bool(p.listed),
      section: { slug: p.section_slug, title: p.section_title, published: bool(p.section_published) },
      anchors: { published: null, draft: null },
    }));
    const references: ReferenceEntry[] = (await repo.references(db, version.id)).map((r) => ({
      id: r.id,
      title: r.title,
      slug: r.slug,
      published: bool(r.published) && bool(r.has_published),
    }));
    const facts = {
      slug: version.slug,
      isDefault: versions.find((v) => bool(v.published))?.id === version.id,
      otherSlugs: new Set(versions.filter((v) => v.id !== version.id).map((v) => v.slug)),
    };
    return { index: new LinkIndex(facts, sections, pages, references), pages };
  }

  /**
   * The operation anchors search gives each reference (`#<operationId>`, else `#<method>-<path>`),
   * for the references some link names with a fragment; definitions are read in a worker thread.
   */
  private async referenceAnchors(
    db: Executor,
    references: readonly ReferenceEntry[],
  ): Promise<Map<number, ReferenceAnchors>> {
    const anchors = new Map<number, ReferenceAnchors>();
    for (const reference of references) {
      const row = await repo.definitions(db, reference.id);
      if (row === undefined) continue;
      anchors.set(reference.id, {
        published: await this.operationAnchors(row.definition_published, row.format_published),
        draft: await this.operationAnchors(row.definition_draft, row.format_draft),
      });
    }
    return anchors;
  }

  private async operationAnchors(
    definition: string | null,
    format: 'json' | 'yaml' | null,
  ): Promise<Set<string> | null> {
    if (definition === null || format === null) return null;
    const { operations } = await reportTask(() =>
      this.workers.run({ kind: 'referenceOperations', definition, format }),
    );
    return new Set(operations.map((operation) => operation.fragment));
  }
}

/** Reads the pages' contents a batch at a time, in page order; an empty batch at the end. */
function contentsOf(db: Executor, pages: readonly PageEntry[]): () => Promise<PendingScan[]> {
  let next = 0;
  return async () => {
    // A query answers within the same turn of the event loop on SQLite, and cached scans need no
    // thread: without this, a version whose scans are all cached would hold the loop throughout.
    await setImmediate();
    const batch = pages.slice(next, next + CONTENTS_BATCH);
    next += CONTENTS_BATCH;
    const rows = await repo.contents(
      db,
      batch.map((p) => p.id),
    );
    return pendingScans(batch, rows);
  };
}

/**
 * The contents of a batch to scan, in page order: the published one, then the draft. A draft equal
 * to the published content is not scanned again: it would only repeat the same findings, and its
 * anchors are the published ones (`anchors.draft` stays null, which means just that).
 */
function pendingScans(batch: readonly PageEntry[], rows: readonly LinkContentRow[]): PendingScan[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const items: PendingScan[] = [];
  for (const page of batch) {
    const row = byId.get(page.id);
    if (row === undefined) continue;
    const { content_published: published, content_draft: draft } = row;
    if (published !== null) items.push({ page, isDraft: false, source: published });
    if (draft !== null && draft !== published) items.push({ page, isDraft: true, source: draft });
  }
  return items;
}
