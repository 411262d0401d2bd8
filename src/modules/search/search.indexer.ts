import { setImmediate } from 'node:timers/promises';
import type { DialectName } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import type { ChangeWrites } from '../../db/change-writes.ts';
import type { DefinitionFormat } from '../../openapi/definition.parser.ts';
import { operationsInPlace, type IndexedOperation } from '../../openapi/reference-operations.ts';
import {
  entriesOf,
  entriesOfPages as entriesOfPagesHere,
  postEntries,
  withoutMarks,
  type Entry,
  type LargeSections,
} from './search.entries.ts';
import { searchIndexRepository as repo, type IndexScope } from './search.index.repository.ts';

/**
 * How the operations of a stored definition are read. The server reads them in a worker thread
 * (a definition may be megabytes); the migration that builds the index reads them in place.
 */
export type OperationsReader = (
  definition: string | Uint8Array,
  format: DefinitionFormat,
) => Promise<IndexedOperation[]>;

/** Rows are written this many at a time (at most 15 values each, far below either database's limit). */
const BATCH = 200;
/** Entries of deferred pages (pagesPending) are written this many at a time (with their words). */
const PENDING_BATCH = 50;
/**
 * Keeps the search index equal to what readers can see. Each method replaces the entries of one
 * scope (a page, a reference, a changelog post, a version, a project) inside the caller's
 * transaction: entries of something no longer visible are removed, and the visible ones are derived
 * again from the stored contents.
 */
export class SearchIndexer {
  /** the transactions whose pages are indexed together before they commit, and those pages */
  private readonly pending = new WeakMap<Executor, Set<number>>();

  constructor(
    private readonly dialect: DialectName,
    private readonly operations: OperationsReader = operationsInPlace,
    /** the sections of large pages, read in a worker thread by the server; absent, in place */
    private readonly largeSections?: LargeSections,
  ) {}

  private entriesOfPages(pages: Parameters<typeof entriesOfPagesHere>[0]): Promise<Entry[]> {
    return entriesOfPagesHere(pages, this.largeSections);
  }

  /**
   * With `writes` on PostgreSQL, the old entries' delete and the new ones' insert join the change's
   * writes, sent as one statement after the read: its delete sees the table as it was before the
   * statement, so it removes the old entries only.
   */
  async page(trx: Executor, pageId: number, writes?: ChangeWrites): Promise<void> {
    const pending = this.pending.get(trx);
    if (pending !== undefined) {
      pending.add(pageId);
      return;
    }
    if (writes !== undefined && this.dialect === 'postgres') {
      writes.add(repo.deletion(trx, 'page_id', pageId));
      const pages = await repo.pages(trx, 'p.id', pageId);
      const entries = await this.entriesOfPages(pages);
      for (let start = 0; start < entries.length; start += BATCH) {
        writes.add(repo.insertion(trx, entries.slice(start, start + BATCH)));
      }
      return;
    }
    await this.remove(trx, 'page_id', pageId);
    const pages = await repo.pages(trx, 'p.id', pageId);
    await this.insert(trx, await this.entriesOfPages(pages));
  }

  /**
   * The pages changed in `trx` from now on are indexed together by `pagesPending`, which its owner
   * calls before it commits (a step of a staged import: nothing reads the index in it meanwhile): a
   * few statements for hundreds of pages instead of a few for each.
   */
  deferPages(trx: Executor): void {
    this.pending.set(trx, new Set());
  }

  /** The pages deferred in `trx`, indexed as they stand now; pages are indexed at once again. */
  async pagesPending(trx: Executor): Promise<void> {
    const ids = [...(this.pending.get(trx) ?? [])];
    this.pending.delete(trx);
    for (let start = 0; start < ids.length; start += BATCH) {
      const some = ids.slice(start, start + BATCH);
      if (this.dialect === 'sqlite') await repo.removePagesFts(trx, some);
      await repo.deletePages(trx, some);
      const pages = await repo.pagesIn(trx, some);
      // Fewer entries to a statement: each statement is a piece of work the event loop cannot cut.
      await this.insert(trx, await this.entriesOfPages(pages), PENDING_BATCH);
    }
  }

  async reference(trx: Executor, referenceId: number): Promise<void> {
    // The upload that got here wrote megabytes in this turn of the event loop: let others in first.
    await setImmediate();
    await this.remove(trx, 'reference_id', referenceId);
    const references = await repo.references(trx, this.dialect === 'sqlite', 'r.id', referenceId);
    await this.insert(trx, await this.referenceEntries(references));
  }

  /** A changelog post: indexed while published (posts are published when created, or never). */
  async changelogPost(trx: Executor, postId: number): Promise<void> {
    await this.remove(trx, 'changelog_post_id', postId);
    const posts = await repo.posts(trx, 'cp.id', postId);
    await this.insert(trx, await entriesOf(posts, postEntries));
  }

  async version(trx: Executor, versionId: number): Promise<void> {
    await this.remove(trx, 'version_id', versionId);
    const pages = await repo.pages(trx, 'v.id', versionId);
    const references = await repo.references(trx, this.dialect === 'sqlite', 'v.id', versionId);
    const entries = [...(await this.entriesOfPages(pages)), ...(await this.referenceEntries(references))];
    await this.insert(trx, entries);
  }

  /** Every entry of a project, derived again (`bin/quire search reindex`). */
  async project(trx: Executor, projectId: number): Promise<number> {
    await this.remove(trx, 'project_id', projectId);
    const pages = await repo.pages(trx, 'v.project_id', projectId);
    const references = await repo.references(trx, this.dialect === 'sqlite', 'v.project_id', projectId);
    const posts = await repo.posts(trx, 'c.project_id', projectId);
    const entries = [
      ...(await this.entriesOfPages(pages)),
      ...(await this.referenceEntries(references)),
      ...(await entriesOf(posts, postEntries)),
    ];
    await this.insert(trx, entries);
    return entries.length;
  }

  /**
   * The entries of a project's pages and changelog posts derived again, its references' kept: what a
   * change of the project's variables alters (a definition's text has none, and reading a large one
   * again would hold the write transaction for seconds).
   */
  async projectTexts(trx: Executor, projectId: number): Promise<number> {
    const stale = await repo.textEntryIds(trx, projectId);
    await this.removeFts(trx, stale);
    await repo.deleteTextEntries(trx, projectId);
    const pages = await repo.pages(trx, 'v.project_id', projectId);
    const posts = await repo.posts(trx, 'c.project_id', projectId);
    const entries = [...(await this.entriesOfPages(pages)), ...(await entriesOf(posts, postEntries))];
    await this.insert(trx, entries);
    return entries.length;
  }

  private async referenceEntries(
    references: ReadonlyArray<{
      id: number;
      slug: string;
      definition: string | Uint8Array | null;
      format_published: DefinitionFormat | null;
      version_id: number;
      version_slug: string;
      project_id: number;
    }>,
  ): Promise<Entry[]> {
    const entries: Entry[] = [];
    for (const reference of references) {
      if (reference.definition === null || reference.format_published === null) continue;
      const operations = await this.operations(reference.definition, reference.format_published);
      operations.forEach((operation, ordr) =>
        entries.push({
          project_id: reference.project_id,
          version_id: reference.version_id,
          documentation_id: null,
          page_id: null,
          reference_id: reference.id,
          section_type: 'ref',
          version_slug: reference.version_slug,
          section: 'ref',
          page: reference.slug,
          fragment: operation.fragment,
          title: withoutMarks(operation.title),
          content: withoutMarks(operation.content),
          ordr,
        }),
      );
    }
    return entries;
  }

  /** On SQLite the FTS rows go first, batch by batch (removing one means reading its words again). */
  private async remove(trx: Executor, scope: IndexScope, id: number): Promise<void> {
    if (this.dialect === 'sqlite' && scope === 'page_id') {
      // A page has a few entries (one per heading): one statement, nothing to spread over turns.
      await repo.removePageFts(trx, id);
    } else if (this.dialect === 'sqlite') {
      await this.removeFts(trx, await repo.entryIds(trx, scope, id));
    }
    await repo.deletion(trx, scope, id).execute();
  }

  /** SQLite: the FTS rows of some entries, batch by batch, the event loop answering between them. */
  private async removeFts(trx: Executor, rows: ReadonlyArray<{ id: number }>): Promise<void> {
    if (this.dialect !== 'sqlite') return;
    for (let start = 0; start < rows.length; start += BATCH) {
      await repo.removeFts(trx, rows.slice(start, start + BATCH));
      if (start + BATCH < rows.length) await setImmediate();
    }
  }

  /**
   * On SQLite the words go to the FTS table too, under the entries' ids, batch by batch; between
   * batches the event loop answers other requests (a large reference or version has thousands of
   * entries, and SQLite's writes are synchronous).
   */
  private async insert(trx: Executor, entries: Entry[], batch = BATCH): Promise<void> {
    for (let start = 0; start < entries.length; start += batch) {
      const ids = await repo.insertReturningIds(trx, entries.slice(start, start + batch));
      if (this.dialect !== 'sqlite' || ids.length === 0) continue;
      const first = Math.min(...ids.map((row) => row.id));
      const last = Math.max(...ids.map((row) => row.id));
      await repo.insertFts(trx, first, last);
      if (start + batch < entries.length) await setImmediate();
    }
  }
}

/** The whole index, derived again from what every project holds (the migration that creates it). */
export async function rebuildSearchIndex(db: Executor, dialect: DialectName): Promise<number> {
  const indexer = new SearchIndexer(dialect);
  let entries = 0;
  for (const { id } of await repo.projectIds(db)) {
    entries += await indexer.project(db, id);
  }
  return entries;
}
