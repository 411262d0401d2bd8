import type { Migration } from './helpers.ts';

/**
 * What a key limited to some versions may see leaves Quire by two more paths (decision 0019):
 * a webhook keeps the version scope of the key that registered it (JSON array of version ids, null
 * for every version), and an audit entry records the version it is about (`version_id`) or that it
 * is about none and holds nothing of one (`project_wide` = 1). Entries written before this
 * migration have neither, so keys limited to versions do not see them; unlimited keys see all.
 */
export const versionScope: Migration = {
  name: '0013-version-scope',
  async up({ db }) {
    await db.schema.alterTable('webhooks').addColumn('versions', 'text').execute();
    await db.schema.alterTable('audit_log').addColumn('version_id', 'integer').execute();
    await db.schema
      .alterTable('audit_log')
      .addColumn('project_wide', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
