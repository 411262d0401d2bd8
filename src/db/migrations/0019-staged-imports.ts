import { sql } from 'kysely';
import type { Migration } from './helpers.ts';

/**
 * A version an import is still writing (docs/decisions/0020-import-yields.md): on SQLite an import
 * commits in short steps, its versions hidden as deleted until its last step makes them live.
 * `import_stage` names the process that writes it (`pid:instance`), so that the versions of an import
 * whose process died can be told from those of one still running, and removed. Null for every other
 * version. A partial index: staged versions are few and short-lived, and searches look for them.
 */
export const stagedImports: Migration = {
  name: '0019-staged-imports',
  async up({ db }) {
    await db.schema.alterTable('versions').addColumn('import_stage', 'text').execute();
    await sql`create index versions_import_stage_idx on versions (import_stage) where import_stage is not null`.execute(
      db,
    );
  },
};
