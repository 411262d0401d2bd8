import { setImmediate } from 'node:timers/promises';
import { sql, type Insertable } from 'kysely';
import { extractSections } from '../../content/sections.ts';
import type { DialectName } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import type { SearchEntriesTable } from '../../db/schema.ts';
import { parseVariables, utf8Text } from '../../shared/serialised.ts';
import { parseStoredDefinition, type DefinitionFormat } from '../references/definition.parser.ts';
import { referenceOperations, type IndexedOperation } from './reference-operations.ts';

type Entry = Insertable<SearchEntriesTable>;
type Scope = 'page_id' | 'reference_id' | 'version_id' | 'project_id';

/**
 * How the operations of a stored definition are read. The server reads them in a worker thread
 * (a definition may be megabytes); the migration that builds the index reads them in place.
 */
export type OperationsReader = (
  definition: string | Uint8Array,
  format: DefinitionFormat,
) => Promise<IndexedOperation[]>;

export const operationsInPlace: OperationsReader = (definition, format) => {
  try {
    return Promise.resolve(referenceOperations(parseStoredDefinition(utf8Text(definition), format)));
  } catch {
    // Stored definitions were valid when uploaded; one that no longer parses has nothing to index.
    return Promise.resolve([]);
  }
};

/** Rows are written this many at a time (14 values each, far below either database's limit). */
const BATCH = 200;
/** The control characters the engines' highlights are marked with; never part of indexed text. */
/**
 * Text for the index: without the engine's mark characters, and without NUL, which a page can carry
 * only escaped (`\u0000` in a plugin's JSON) but which the derived text then holds as it is, and which
 * PostgreSQL refuses in text.
 */
const withoutMarks = (text: string): string =>
  // eslint-disable-next-line no-control-regex
  text.replace(/[\u0000-\u0002]/g, (c) => (c === '\u0000' ? '' : ' '));

/** Live pages of live, published sections of published versions, listed, with published contents. */
const visiblePages = (db: Executor) =>
  db
    .selectFrom('pages as p')
    .innerJoin('documentation as d', 'd.id', 'p.documentation_id')
    .innerJoin('versions as v', 'v.id', 'd.version_id')
    .innerJoin('projects as pr', 'pr.id', 'v.project_id')
    .select([
      'p.id',
      'p.title',
      'p.slug',
      'p.content_published',
      'p.documentation_id',
      'd.slug as section',
      'v.id as version_id',
      'v.slug as version_slug',
      'v.project_id',
      'pr.variables',
    ])
    .where('p.deleted_at', 'is', null)
    .where('d.deleted_at', 'is', null)
    .where('v.deleted_at', 'is', null)
    .where('p.listed', '=', 1)
    .where('d.published', '=', 1)
    .where('v.published', '=', 1)
    .where('p.content_published', 'is not', null)
    .orderBy('p.id');

type VisiblePage = Awaited<ReturnType<ReturnType<typeof visiblePages>['execute']>>[number];

/**
 * Live, published references of published versions. On SQLite the definition comes as its stored
 * UTF-8 bytes (a copy; decoding megabytes into a string would hold the event loop), for the thread
 * that reads its operations.
 */
const visibleReferences = (db: Executor, sqlite: boolean) =>
  db
    .selectFrom('api_references as r')
    .innerJoin('versions as v', 'v.id', 'r.version_id')
    .select([
      'r.id',
      'r.slug',
      sqlite
        ? sql<Uint8Array | null>`cast(r.definition_published as blob)`.as('definition')
        : sql<string | null>`r.definition_published`.as('definition'),
      'r.format_published',
      'v.id as version_id',
      'v.slug as version_slug',
      'v.project_id',
    ])
    .where('r.deleted_at', 'is', null)
    .where('v.deleted_at', 'is', null)
    .where('r.published', '=', 1)
    .where('v.published', '=', 1)
    .where('r.definition_published', 'is not', null)
    .orderBy('r.id');

/** A page's entries: its title with the text before its first H2, then one per H2 section. */
export function pageEntries(page: VisiblePage): Entry[] {
  const sections = extractSections(page.content_published ?? '', {
    variables: parseVariables(page.variables),
  });
  if (sections[0]?.heading !== null) sections.unshift({ heading: null, anchor: null, text: '' });
  return sections.map((section, ordr) => ({
    project_id: page.project_id,
    version_id: page.version_id,
    documentation_id: page.documentation_id,
    page_id: page.id,
    reference_id: null,
    section_type: 'doc',
    version_slug: page.version_slug,
    section: page.section,
    page: page.slug,
    fragment: section.anchor ?? '',
    title: withoutMarks(section.heading ?? page.title),
    content: withoutMarks(section.text),
    ordr,
  }));
}

/** Pages are read this many at a time before the event loop gets a turn (a version may have thousands). */
const PAGES_PER_TURN = 25;

async function entriesOfPages(pages: readonly VisiblePage[]): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (let i = 0; i < pages.length; i++) {
    const page = pages[i];
    if (page !== undefined) entries.push(...pageEntries(page));
    if ((i + 1) % PAGES_PER_TURN === 0) await setImmediate();
  }
  return entries;
}

/**
 * Keeps the search index equal to what readers can see. Each method replaces the entries of one
 * scope (a page, a reference, a version, a project) inside the caller's transaction: entries of
 * something no longer visible are removed, and the visible ones are derived again from the stored
 * contents.
 */
export class SearchIndexer {
  constructor(
    private readonly dialect: DialectName,
    private readonly operations: OperationsReader = operationsInPlace,
  ) {}

  async page(trx: Executor, pageId: number): Promise<void> {
    await this.remove(trx, 'page_id', pageId);
    const pages = await visiblePages(trx).where('p.id', '=', pageId).execute();
    await this.insert(trx, await entriesOfPages(pages));
  }

  async reference(trx: Executor, referenceId: number): Promise<void> {
    // The upload that got here wrote megabytes in this turn of the event loop: let others in first.
    await setImmediate();
    await this.remove(trx, 'reference_id', referenceId);
    const references = await visibleReferences(trx, this.dialect === 'sqlite')
      .where('r.id', '=', referenceId)
      .execute();
    await this.insert(trx, await this.referenceEntries(references));
  }

  async version(trx: Executor, versionId: number): Promise<void> {
    await this.remove(trx, 'version_id', versionId);
    const pages = await visiblePages(trx).where('v.id', '=', versionId).execute();
    const references = await visibleReferences(trx, this.dialect === 'sqlite')
      .where('v.id', '=', versionId)
      .execute();
    const entries = [...(await entriesOfPages(pages)), ...(await this.referenceEntries(references))];
    await this.insert(trx, entries);
  }

  /** Every entry of a project, derived again (`bin/quire search reindex`). */
  async project(trx: Executor, projectId: number): Promise<number> {
    await this.remove(trx, 'project_id', projectId);
    const pages = await visiblePages(trx).where('v.project_id', '=', projectId).execute();
    const references = await visibleReferences(trx, this.dialect === 'sqlite')
      .where('v.project_id', '=', projectId)
      .execute();
    const entries = [...(await entriesOfPages(pages)), ...(await this.referenceEntries(references))];
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
  private async remove(trx: Executor, scope: Scope, id: number): Promise<void> {
    if (this.dialect === 'sqlite') {
      const rows = await trx.selectFrom('search_entries').select('id').where(scope, '=', id).execute();
      for (let start = 0; start < rows.length; start += BATCH) {
        const ids = rows.slice(start, start + BATCH).map((row) => sql`${row.id}`);
        await sql`delete from search_fts where rowid in (${sql.join(ids)})`.execute(trx);
        if (start + BATCH < rows.length) await setImmediate();
      }
    }
    await trx.deleteFrom('search_entries').where(scope, '=', id).execute();
  }

  /**
   * On SQLite the words go to the FTS table too, under the entries' ids, batch by batch; between
   * batches the event loop answers other requests (a large reference or version has thousands of
   * entries, and SQLite's writes are synchronous).
   */
  private async insert(trx: Executor, entries: Entry[]): Promise<void> {
    for (let start = 0; start < entries.length; start += BATCH) {
      const ids = await trx
        .insertInto('search_entries')
        .values(entries.slice(start, start + BATCH))
        .returning('id')
        .execute();
      if (this.dialect !== 'sqlite' || ids.length === 0) continue;
      const first = Math.min(...ids.map((row) => row.id));
      const last = Math.max(...ids.map((row) => row.id));
      await sql`insert into search_fts (rowid, title, content, scope)
        select id, title, content,
          'p' || project_id || ' v' || version_id || ' ' || coalesce('d' || documentation_id, 'r')
        from search_entries where id between ${first} and ${last}`.execute(trx);
      if (start + BATCH < entries.length) await setImmediate();
    }
  }
}

/** The whole index, derived again from what every project holds (the migration that creates it). */
export async function rebuildSearchIndex(db: Executor, dialect: DialectName): Promise<number> {
  const indexer = new SearchIndexer(dialect);
  let entries = 0;
  for (const { id } of await db.selectFrom('projects').select('id').orderBy('id').execute()) {
    entries += await indexer.project(db, id);
  }
  return entries;
}
