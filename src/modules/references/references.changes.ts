import type { Kysely } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { DialectName } from '../../db/dialect.ts';
import type { Database } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import type { ChangeReport } from '../../openapi/definition-diff.types.ts';
import type { WorkerPool } from '../../workers/pool.ts';
import { DefinitionDiffer, sameText } from './definition.differ.ts';
import {
  REVISIONS_KEPT,
  referenceRevisionsRepository as revisions,
} from './reference-revisions.repository.ts';
import {
  referencesRepository as repo,
  type DefinitionSource,
  type DefinitionText,
  type ReferenceRow,
} from './references.repository.ts';

/** The definitions a change report can compare: the two current ones, or a revision kept. */
export type StoredDefinition = 'published' | 'draft' | number;

/**
 * The API change report of references (extensions.md §8, decision 0033): between the two stored
 * definitions of a reference, and for an upload, between the definition it replaces and the new one.
 */
export class ReferenceChanges {
  private readonly differ: DefinitionDiffer;
  private readonly sqlite: boolean;

  constructor(
    private readonly reader: Kysely<Database>,
    workers: WorkerPool,
    dialect: DialectName,
  ) {
    this.differ = new DefinitionDiffer(workers);
    this.sqlite = dialect === 'sqlite';
  }

  /** `GET /reference/{id}/changes`: the caller has found the reference and may read it. */
  async between(
    db: Executor | undefined,
    row: ReferenceRow,
    from: StoredDefinition,
    to: StoredDefinition,
  ): Promise<ChangeReport> {
    const [before, after] = [await this.stored(db, row, from), await this.stored(db, row, to)];
    return this.differ.diff(before, after);
  }

  /**
   * What an upload of this title to this version would replace (null: nothing); read in the
   * upload's transaction (`db`), it stays so until the commit.
   */
  replaced(db: Executor | undefined, versionId: number, title: string, publish: boolean) {
    return repo.replacedDefinition(
      db ?? this.reader,
      versionId,
      title,
      publish,
      this.sqlite,
      db !== undefined,
    );
  }

  /** The report of an upload: from the definition it replaces to the one uploaded. */
  ofUpload(replaced: DefinitionSource, uploaded: DefinitionText): Promise<ChangeReport> {
    return this.differ.diff(replaced, uploaded);
  }

  private async stored(db: Executor | undefined, row: ReferenceRow, which: StoredDefinition) {
    if (typeof which === 'number') {
      const kept = await revisions.source(db ?? this.reader, row.id, which, this.sqlite);
      if (!kept) {
        throw new NotFoundError(
          `Reference ${row.id} has no revision ${which} (the newest ${REVISIONS_KEPT} are kept).`,
        );
      }
      return kept;
    }
    const draft = which === 'draft';
    // As the definition read answers: an unpublished reference has no published definition to show.
    const text =
      draft || row.published === 1
        ? await repo.definitionSource(db ?? this.reader, row.id, draft, this.sqlite)
        : undefined;
    if (!text) throw new NotFoundError(`Reference ${row.id} has no ${which} definition.`);
    return text;
  }
}

/** Whether the definition a transaction finds is the one the report was made against. */
export const sameDefinition = (a: DefinitionSource | null, b: DefinitionSource | null): boolean =>
  a === null || b === null ? a === b : a.format === b.format && sameText(a.text, b.text);
