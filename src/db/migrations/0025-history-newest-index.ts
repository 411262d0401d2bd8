import type { Migration } from './helpers.ts';

/**
 * A page's revisions indexed by page and id together. Every write of a page reads its newest revision
 * (`where page_id = ? order by id desc limit 1`, decision 0038), and the history lists a page's
 * revisions newest first. On PostgreSQL the index on `page_id` alone could not give that order, and
 * the planner walked the primary key backwards instead, filtering by page: a write of a page last
 * edited long ago read the history of every page edited since. The new index gives the newest
 * revision in one seek. It weighs more on PostgreSQL: its entries are unique, so they cannot be
 * deduplicated as the old one's were (about 32 bytes a revision with the page; decision 0038). On
 * SQLite the old index held the rowid (the id) already; the new one is the same, under a name that
 * says what it is for.
 */
export const historyNewestIndex: Migration = {
  name: '0025-history-newest-index',
  async up({ db }) {
    await db.schema
      .createIndex('page_history_page_id_idx')
      .on('page_history')
      .columns(['page_id', 'id'])
      .execute();
    await db.schema.dropIndex('page_history_page_idx').execute();
  },
};
