import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/executor.ts';

export interface CloneIds {
  from: number;
  to: number;
  at: string;
}

/** Who made the clone, recorded in the history of every copied page. */
export interface CloneAuthor {
  apiKeyId: number | null;
  userId: number | null;
  message: string;
}

const affected = (result: { numAffectedRows?: bigint }): number => Number(result.numAffectedRows ?? 0n);

/**
 * A content column with the links that name the source version re-pointed at the clone. Links are
 * matched where they start in Markdown (`](/v1/`, `]: /v1/`), in HTML or a plugin's JSON (`"/v1/`,
 * `'/v1/`) and in autolinks (`</v1/`); version-relative links (`/section/page`) need nothing.
 */
function repointed(column: RawBuilder<string | null>, from: string, to: string): RawBuilder<string | null> {
  let value = column;
  for (const lead of ['](/', ']: /', '"/', "'/", '</']) {
    value = sql<string | null>`replace(${value}, ${`${lead}${from}/`}, ${`${lead}${to}/`})`;
  }
  // Most pages name no version: they are copied as they are, unscanned by the replacements.
  return sql<string | null>`case when ${column} like ${`%/${from}/%`} then ${value} else ${column} end`;
}

/**
 * The set-based statements of a version clone (N2): each copies one kind of row of the whole version
 * with one INSERT … SELECT, so the time is a handful of statements however many pages there are.
 * Sections are matched to their copies by slug (unique in a version), categories and pages through
 * the source id each copy keeps. They copy every live row, drafts and unpublished ones too, in
 * SQL of their own: db/visibility.ts builds selects, not INSERT … SELECT (decision 0023).
 */
export const cloneRepository = {
  async sections(db: Executor, ids: CloneIds): Promise<number> {
    return affected(
      await sql`
        insert into documentation (version_id, title, slug, published, ordr, deleted_at, created, updated)
        select cast(${ids.to} as integer), title, slug, published, ordr, null, ${ids.at}, ${ids.at}
        from documentation where version_id = ${ids.from} and deleted_at is null`.execute(db),
    );
  },

  async categories(db: Executor, ids: CloneIds): Promise<number> {
    return affected(
      await sql`
        insert into categories (documentation_id, title, position, source_category_id, created, updated)
        select nd.id, c.title, c.position, c.id, ${ids.at}, ${ids.at}
        from categories c
        join documentation d on d.id = c.documentation_id
        join documentation nd on nd.version_id = ${ids.to} and nd.slug = d.slug
        where d.version_id = ${ids.from} and d.deleted_at is null`.execute(db),
    );
  },

  async pages(db: Executor, ids: CloneIds, slugs: { from: string; to: string }): Promise<number> {
    const draft = repointed(sql`p.content_draft`, slugs.from, slugs.to);
    const published = repointed(sql`p.content_published`, slugs.from, slugs.to);
    const copied = affected(
      await sql`
        insert into pages (documentation_id, category_id, parent_page_id, title, slug, listed,
          content_draft, content_published, position, deleted_at, source_page_id, created, updated)
        select nd.id, nc.id, p.parent_page_id, p.title, p.slug, p.listed,
          ${draft}, ${published}, p.position, null, p.id, ${ids.at}, ${ids.at}
        from pages p
        join documentation d on d.id = p.documentation_id
        join documentation nd on nd.version_id = ${ids.to} and nd.slug = d.slug
        left join categories nc on nc.source_category_id = p.category_id and nc.documentation_id = nd.id
        where d.version_id = ${ids.from} and d.deleted_at is null and p.deleted_at is null`.execute(db),
    );
    // The copies still name their sources' parents: point them at the parents' copies (a parent is
    // always in its child's section; one that was deleted has no copy, and the child is top-level).
    await sql`
      update pages set parent_page_id = (
        select np.id from pages np
        where np.source_page_id = pages.parent_page_id and np.documentation_id = pages.documentation_id
      )
      where parent_page_id is not null
        and documentation_id in (select id from documentation where version_id = ${ids.to})`.execute(db);
    return copied;
  },

  async history(db: Executor, ids: CloneIds, author: CloneAuthor): Promise<void> {
    await sql`
      insert into page_history (page_id, operation, message, title, slug, content_draft,
        content_published, api_key_id, user_id, created)
      select p.id, 'create', ${author.message}, p.title, p.slug, p.content_draft, p.content_published,
        cast(${author.apiKeyId} as integer), cast(${author.userId} as integer), ${ids.at}
      from pages p join documentation nd on nd.id = p.documentation_id
      where nd.version_id = ${ids.to}`.execute(db);
  },

  async references(db: Executor, ids: CloneIds): Promise<number> {
    return affected(
      await sql`
        insert into api_references (version_id, title, slug, ordr, published, definition_published,
          format_published, definition_draft, format_draft, deleted_at, created, updated)
        select cast(${ids.to} as integer), title, slug, ordr, published, definition_published,
          format_published, definition_draft, format_draft, null, ${ids.at}, ${ids.at}
        from api_references where version_id = ${ids.from} and deleted_at is null`.execute(db),
    );
  },

  /**
   * Revision 1 of every copied reference (decision 0033): its published definition, then its draft
   * as the next one. The source's history is not copied.
   */
  async referenceRevisions(db: Executor, ids: CloneIds, author: Omit<CloneAuthor, 'message'>): Promise<void> {
    await sql`
      insert into reference_revisions (reference_id, revision, published, definition, format,
        api_key_id, user_id, created)
      select id, 1, 1, definition_published, format_published, cast(${author.apiKeyId} as integer),
        cast(${author.userId} as integer), ${ids.at}
      from api_references where version_id = ${ids.to} and definition_published is not null`.execute(db);
    await sql`
      insert into reference_revisions (reference_id, revision, published, definition, format,
        api_key_id, user_id, created)
      select id, case when definition_published is null then 1 else 2 end, 0, definition_draft,
        format_draft, cast(${author.apiKeyId} as integer), cast(${author.userId} as integer), ${ids.at}
      from api_references where version_id = ${ids.to} and definition_draft is not null`.execute(db);
  },

  /** Every version of the project one place later, making room for the clone at `ordr` 0. */
  async shiftVersions(db: Executor, projectId: number): Promise<void> {
    await sql`update versions set ordr = ordr + 1 where project_id = ${projectId}`.execute(db);
  },
};
