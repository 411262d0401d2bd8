import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { mapUnique } from '../../db/unique.ts';
import type { DefinitionSource } from './references.repository.ts';

/**
 * The history of a reference's definitions (decision 0033): one revision per definition stored,
 * numbered from 1 per reference. Only the newest REVISIONS_KEPT are kept; older ones are deleted in
 * the transaction that writes a new one. A revision's number is never given again.
 */
export const REVISIONS_KEPT = 20;

export interface RevisionRow {
  revision: number;
  published: number;
  created: string;
}

/** Who stored a revision: the key and its user, as page history records them. */
export interface RevisionAuthor {
  apiKeyId: number | null;
  userId: number | null;
}

export const referenceRevisionsRepository = {
  /**
   * The reference's current published or draft definition, copied inside the database as its next
   * revision; the oldest past the bound deleted. Run after the write it records, in its
   * transaction: the reference's row is locked by then, so two writers of one reference take
   * their numbers one after the other.
   */
  async record(
    db: Executor,
    referenceId: number,
    which: 'published' | 'draft',
    author: RevisionAuthor,
    created: string,
  ): Promise<void> {
    const published = which === 'published';
    await mapUnique(() =>
      db
        .insertInto('reference_revisions')
        .columns([
          'reference_id',
          'revision',
          'published',
          'definition',
          'format',
          'api_key_id',
          'user_id',
          'created',
        ])
        .expression((eb) =>
          eb
            .selectFrom('api_references as r')
            .select([
              'r.id',
              sql<number>`coalesce((select max(rr.revision) from reference_revisions rr
                where rr.reference_id = r.id), 0) + 1`.as('revision'),
              sql<number>`cast(${published ? 1 : 0} as integer)`.as('published'),
              published ? 'r.definition_published' : 'r.definition_draft',
              published ? 'r.format_published' : 'r.format_draft',
              sql<number | null>`cast(${author.apiKeyId} as integer)`.as('api_key_id'),
              sql<number | null>`cast(${author.userId} as integer)`.as('user_id'),
              sql<string>`${created}`.as('created'),
            ])
            .where('r.id', '=', referenceId)
            .where(published ? 'r.definition_published' : 'r.definition_draft', 'is not', null),
        )
        .execute(),
    );
    await sql`
      delete from reference_revisions where reference_id = ${referenceId} and revision <= (
        select max(revision) from reference_revisions where reference_id = ${referenceId}
      ) - ${REVISIONS_KEPT}`.execute(db);
  },

  /** The revisions kept, newest first, without their definitions. */
  list(db: Executor, referenceId: number): Promise<RevisionRow[]> {
    return db
      .selectFrom('reference_revisions')
      .select(['revision', 'published', 'created'])
      .where('reference_id', '=', referenceId)
      .orderBy('revision', 'desc')
      .execute();
  },

  /** A revision's definition as a change report reads it (its bytes on SQLite), if it is kept. */
  async source(
    db: Executor,
    referenceId: number,
    revision: number,
    sqlite: boolean,
  ): Promise<DefinitionSource | undefined> {
    const text = sqlite
      ? sql<string | Uint8Array>`cast(definition as blob)`
      : sql<string | Uint8Array>`definition`;
    return db
      .selectFrom('reference_revisions')
      .select([text.as('text'), 'format'])
      .where('reference_id', '=', referenceId)
      .where('revision', '=', revision)
      .executeTakeFirst();
  },
};
