import type SQLite from 'better-sqlite3';
import type { Executor } from '../../db/executor.ts';
import { pagesRepository as repo, type LinkTitleRow, type PageView } from './pages.repository.ts';

/**
 * The hot read path of `GET /page/{id}`. On SQLite it runs statements prepared once on the raw
 * connection, which skips Kysely's query compilation and its connection queue (measured: most of the
 * cost of a point read). On PostgreSQL, or while a Kysely transaction holds the shared SQLite
 * connection, it goes through the repository: a raw statement run then would read inside that open
 * transaction and could see writes not yet committed.
 */
const LINK_SLOTS = 4;

interface Statements {
  view: SQLite.Statement<[number, number], PageView>;
  linkTitles: SQLite.Statement<Array<string | number | null>, LinkTitleRow>;
}

export class PageReads {
  private statements: Statements | null = null;

  constructor(
    private readonly db: Executor,
    private readonly sqlite: SQLite.Database | null,
  ) {}

  view(projectId: number, id: number): Promise<PageView | undefined> {
    const statements = this.prepared();
    if (statements) return Promise.resolve(statements.view.get(id, projectId));
    return repo.findView(this.db, projectId, id);
  }

  /**
   * Titles of the pages named by `${documentationSlug}/${pageSlug}` keys, in one version. On SQLite the
   * keys drive the join (a VALUES list, LINK_SLOTS at a time, unused slots null) so that each is one
   * lookup in the unique (documentation_id, slug) index: with the keys as `IN` lists instead, the
   * planner scans a whole section through a covering index.
   */
  linkTitles(versionId: number, keys: readonly string[]): Promise<LinkTitleRow[]> {
    const statements = this.prepared();
    const pairs = keys.map((key) => {
      const slash = key.indexOf('/');
      return { documentation_slug: key.slice(0, slash), slug: key.slice(slash + 1) };
    });
    if (!statements) return repo.linkTitles(this.db, versionId, pairs);
    const rows: LinkTitleRow[] = [];
    for (let start = 0; start < pairs.length; start += LINK_SLOTS) {
      const args: Array<string | number | null> = [];
      for (let i = start; i < start + LINK_SLOTS; i++) {
        args.push(pairs[i]?.documentation_slug ?? null, pairs[i]?.slug ?? null);
      }
      args.push(versionId);
      rows.push(...statements.linkTitles.all(...args));
    }
    return Promise.resolve(rows);
  }

  /** Prepared on first use: the tables exist only once migrations have run, after construction. */
  private prepared(): Statements | null {
    if (this.sqlite === null || this.sqlite.inTransaction) return null;
    this.statements ??= {
      view: this.sqlite.prepare(`
        select p.id, p.documentation_id, d.version_id, p.title, p.slug, p.listed,
               p.content_draft, p.content_published, p.created, p.updated,
               d.slug as documentation_slug, v.slug as version_slug, pr.variables
        from pages p
        join documentation d on d.id = p.documentation_id
        join versions v on v.id = d.version_id
        join projects pr on pr.id = v.project_id
        where p.id = ? and v.project_id = ?
          and p.deleted_at is null and d.deleted_at is null and v.deleted_at is null`),
      linkTitles: this.sqlite.prepare<Array<string | number | null>, LinkTitleRow>(`
        select d.slug as documentation_slug, p.slug, p.title
        from (values ${Array.from({ length: LINK_SLOTS }, () => '(?, ?)').join(', ')}) as wanted
        join documentation d on d.version_id = ? and d.slug = wanted.column1
        join pages p on p.documentation_id = d.id and p.slug = wanted.column2
        where +p.deleted_at is null and +d.deleted_at is null`),
    };
    return this.statements;
  }
}
