import { sql } from 'kysely';
import type { Migration } from './helpers.ts';

/** ASCII's 32 punctuation characters, and as many spaces. */
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const SPACES = ' '.repeat(PUNCTUATION.length);

/**
 * PostgreSQL's search words made as SQLite's and the query's are: only letters and digits make a
 * word. PostgreSQL's parser reads `/pets`, `docs/setup.md`, `api.example.com` and `a@b.io` as one
 * token each, which no query can match, since a query's words never hold punctuation; so an
 * operation titled `GET /pets` was not found by `pets`. The generated columns now read the text
 * with ASCII punctuation as spaces (one character for one, which the highlights rely on: decision
 * 0010). PostgreSQL 15 cannot change a generated column's expression, so both are made again, which
 * computes them for every entry. SQLite's index already splits words so: nothing changes there.
 */
export const searchWords: Migration = {
  name: '0012-search-words',
  async up({ db, dialect }) {
    if (dialect !== 'postgres') return;
    const words = (column: string) =>
      sql`to_tsvector('english', translate(${sql.ref(column)}, ${sql.lit(PUNCTUATION)}, ${sql.lit(SPACES)}))`;
    await sql`alter table search_entries drop column document, drop column title_document`.execute(db);
    await db.schema
      .alterTable('search_entries')
      .addColumn('document', sql`tsvector`, (c) =>
        c
          .generatedAlwaysAs(sql`setweight(${words('title')}, 'A') || setweight(${words('content')}, 'B')`)
          .stored(),
      )
      .addColumn('title_document', sql`tsvector`, (c) => c.generatedAlwaysAs(words('title')).stored())
      .execute();
    await sql`create index search_entries_document_idx on search_entries using gin (document)`.execute(db);
  },
};
