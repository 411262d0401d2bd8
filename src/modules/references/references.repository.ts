import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ApiReferencesTable } from '../../db/schema.ts';
import { mapUnique } from '../../db/unique.ts';
import { liveReferences } from '../../db/visibility.ts';

/**
 * Everything but the definitions themselves (up to 8 MiB each), which only the definition read
 * fetches. `format_draft` / `format_published` are set exactly when the matching definition is.
 */
const COLUMNS = [
  'id',
  'version_id',
  'title',
  'slug',
  'ordr',
  'published',
  'format_published',
  'format_draft',
  'created',
  'updated',
] as const;
const META = COLUMNS.map((c) => `r.${c}` as const);

export interface DefinitionText {
  text: string;
  format: 'json' | 'yaml';
}

/**
 * A stored definition as a change report reads it: on SQLite its UTF-8 bytes as stored, which cost
 * the event loop a copy where decoding megabytes into a string costs tens of milliseconds; the
 * worker thread that compares them decodes them.
 */
export interface DefinitionSource {
  text: string | Uint8Array;
  format: 'json' | 'yaml';
}

type Column = 'definition_published' | 'definition_draft';
const source = (column: Column, sqlite: boolean) =>
  sqlite
    ? sql<string | Uint8Array | null>`cast(${sql.ref(column)} as blob)`
    : sql<string | Uint8Array | null>`${sql.ref(column)}`;

export type ReferenceRow = Pick<Selectable<ApiReferencesTable>, (typeof COLUMNS)[number]>;

export const referencesRepository = {
  /** A live reference of a live version of the project: other projects' ids are not found. */
  findById(db: Executor, projectId: number, id: number): Promise<ReferenceRow | undefined> {
    return liveReferences(db)
      .select(META)
      .where('r.id', '=', id)
      .where('v.project_id', '=', projectId)
      .executeTakeFirst();
  },

  /**
   * The reference of a version with this exact title, deleted or not: the title is unique in the
   * version whatever the state, so a deleted one is brought back rather than duplicated.
   */
  findByTitle(db: Executor, versionId: number, title: string): Promise<ReferenceRow | undefined> {
    return db
      .selectFrom('api_references as r')
      .select(META)
      .where('r.version_id', '=', versionId)
      .where('r.title', '=', title)
      .executeTakeFirst();
  },

  /** The stored text of the draft or the published definition, with its format. */
  async definition(db: Executor, id: number, draft: boolean): Promise<DefinitionText | undefined> {
    const row = await db
      .selectFrom('api_references')
      .select(
        draft
          ? ['definition_draft as text', 'format_draft as format']
          : ['definition_published as text', 'format_published as format'],
      )
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.text != null && row.format != null ? { text: row.text, format: row.format } : undefined;
  },

  /**
   * The definition an upload to this version and title replaces: for a published upload the
   * published one, else the draft; the other when that one is absent. Null when there is none (a new
   * title). `lock` (PostgreSQL, in a transaction) keeps another upload from replacing it until commit.
   */
  async replacedDefinition(
    db: Executor,
    versionId: number,
    title: string,
    publish: boolean,
    sqlite: boolean,
    lock = false,
  ): Promise<DefinitionSource | null> {
    const row = await db
      .selectFrom('api_references')
      .select([
        source('definition_published', sqlite).as('definition_published'),
        'format_published',
        source('definition_draft', sqlite).as('definition_draft'),
        'format_draft',
      ])
      .where('version_id', '=', versionId)
      .where('title', '=', title)
      .$if(lock && !sqlite, (query) => query.forUpdate())
      .executeTakeFirst();
    if (!row) return null;
    const published =
      row.definition_published != null && row.format_published != null
        ? { text: row.definition_published, format: row.format_published }
        : null;
    const draft =
      row.definition_draft != null && row.format_draft != null
        ? { text: row.definition_draft, format: row.format_draft }
        : null;
    return publish ? (published ?? draft) : (draft ?? published);
  },

  /** As `definition`, the text as a DefinitionSource. */
  async definitionSource(
    db: Executor,
    id: number,
    draft: boolean,
    sqlite: boolean,
  ): Promise<DefinitionSource | undefined> {
    const row = await db
      .selectFrom('api_references')
      .select(
        draft
          ? [source('definition_draft', sqlite).as('text'), 'format_draft as format']
          : [source('definition_published', sqlite).as('text'), 'format_published as format'],
      )
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.text != null && row.format != null ? { text: row.text, format: row.format } : undefined;
  },

  insert(db: Executor, values: Insertable<ApiReferencesTable>): Promise<ReferenceRow> {
    return mapUnique(() =>
      db.insertInto('api_references').values(values).returning(COLUMNS).executeTakeFirstOrThrow(),
    );
  },

  update(db: Executor, id: number, values: Updateable<ApiReferencesTable>): Promise<ReferenceRow> {
    return db
      .updateTable('api_references')
      .set(values)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  },

  /**
   * The draft becomes the published definition, copied inside the database. Only while there is a
   * draft: of two publishes racing, the second finds none (rather than publishing a NULL one).
   */
  publishDraft(db: Executor, id: number, updated: string): Promise<ReferenceRow | undefined> {
    return db
      .updateTable('api_references')
      .set((eb) => ({
        published: 1,
        definition_published: eb.ref('definition_draft'),
        format_published: eb.ref('format_draft'),
        definition_draft: null,
        format_draft: null,
        updated,
      }))
      .where('id', '=', id)
      .where('definition_draft', 'is not', null)
      .returning(COLUMNS)
      .executeTakeFirst();
  },
};
