import type { Migration } from './helpers.ts';
import { notNull } from './helpers.ts';

/**
 * Rendered page contents kept between reads, restarts and instances (decision 0018): a page's
 * output in a format, under the key the renderer's memory cache uses, which names everything the
 * output depends on (the format, the source by digest, the titles its [auto$] links show, the
 * project's variables). Derived data that any instance may add to and the purge may remove at any
 * time: a read renders what is not stored. `json` is 1 where `body` holds the output already as a
 * JSON string (a large page rendered in a worker thread), 0 where it holds the text itself.
 */
export const renderedContents: Migration = {
  name: '0011-rendered-contents',
  async up({ db }) {
    await db.schema
      .createTable('rendered_contents')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('body', 'text', notNull)
      .addColumn('json', 'integer', notNull)
      .addColumn('created', 'text', notNull)
      .execute();
    await db.schema
      .createIndex('rendered_contents_created')
      .on('rendered_contents')
      .column('created')
      .execute();
  },
};
