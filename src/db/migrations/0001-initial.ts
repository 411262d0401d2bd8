import type { Migration } from './helpers.ts';
import { notNull, withId } from './helpers.ts';

/** The whole data model, so later capabilities only add to it. */
export const initial: Migration = {
  name: '0001-initial',
  async up({ db, dialect }) {
    await withId(db.schema.createTable('projects'), dialect)
      .addColumn('name', 'text', notNull)
      .addColumn('plan', 'text', (c) => c.notNull().defaultTo('free'))
      .addColumn('access', 'text', (c) => c.notNull().defaultTo('public'))
      .addColumn('base_path', 'text')
      .addColumn('host', 'text')
      .addColumn('variables', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created', 'text', notNull)
      .addColumn('updated', 'text', notNull)
      .execute();

    await withId(db.schema.createTable('users'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', notNull)
      .addColumn('email', 'text', notNull)
      .addColumn('role', 'text', notNull)
      .addColumn('last_active_at', 'text')
      .addColumn('created', 'text', notNull)
      .addUniqueConstraint('users_project_email_unique', ['project_id', 'email'])
      .execute();

    await withId(db.schema.createTable('api_keys'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', notNull)
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('key_prefix', 'text', notNull)
      .addColumn('permissions', 'text', notNull)
      .addColumn('version_scope', 'text')
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('revoked_at', 'text')
      .addColumn('created', 'text', notNull)
      .execute();

    await withId(db.schema.createTable('versions'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', notNull)
      .addColumn('slug', 'text', notNull)
      .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('ordr', 'integer', notNull)
      .addColumn('deleted_at', 'text')
      .addColumn('created', 'text', notNull)
      .addColumn('updated', 'text', notNull)
      .addUniqueConstraint('versions_project_slug_unique', ['project_id', 'slug'])
      .execute();

    await withId(db.schema.createTable('documentation'), dialect)
      .addColumn('version_id', 'integer', (c) => c.notNull().references('versions.id').onDelete('cascade'))
      .addColumn('title', 'text', notNull)
      .addColumn('slug', 'text', notNull)
      .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('ordr', 'integer', notNull)
      .addColumn('deleted_at', 'text')
      .addColumn('created', 'text', notNull)
      .addColumn('updated', 'text', notNull)
      .addUniqueConstraint('documentation_version_slug_unique', ['version_id', 'slug'])
      .execute();

    await withId(db.schema.createTable('categories'), dialect)
      .addColumn('documentation_id', 'integer', (c) =>
        c.notNull().references('documentation.id').onDelete('cascade'),
      )
      .addColumn('title', 'text', notNull)
      .addColumn('position', 'integer', notNull)
      .addColumn('created', 'text', notNull)
      .addColumn('updated', 'text', notNull)
      .execute();

    await withId(db.schema.createTable('pages'), dialect)
      .addColumn('documentation_id', 'integer', (c) =>
        c.notNull().references('documentation.id').onDelete('cascade'),
      )
      .addColumn('category_id', 'integer', (c) => c.references('categories.id').onDelete('set null'))
      .addColumn('parent_page_id', 'integer', (c) => c.references('pages.id').onDelete('set null'))
      .addColumn('title', 'text', notNull)
      .addColumn('slug', 'text', notNull)
      .addColumn('listed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('content_draft', 'text')
      .addColumn('content_published', 'text')
      .addColumn('position', 'integer', notNull)
      .addColumn('deleted_at', 'text')
      .addColumn('created', 'text', notNull)
      .addColumn('updated', 'text', notNull)
      .addUniqueConstraint('pages_documentation_slug_unique', ['documentation_id', 'slug'])
      .execute();

    await withId(db.schema.createTable('page_history'), dialect)
      .addColumn('page_id', 'integer', (c) => c.notNull().references('pages.id').onDelete('cascade'))
      .addColumn('operation', 'text', notNull)
      .addColumn('message', 'text', notNull)
      .addColumn('title', 'text', notNull)
      .addColumn('slug', 'text', notNull)
      .addColumn('content_draft', 'text')
      .addColumn('content_published', 'text')
      .addColumn('api_key_id', 'integer', (c) => c.references('api_keys.id').onDelete('set null'))
      .addColumn('created', 'text', notNull)
      .execute();

    await withId(db.schema.createTable('api_references'), dialect)
      .addColumn('version_id', 'integer', (c) => c.notNull().references('versions.id').onDelete('cascade'))
      .addColumn('title', 'text', notNull)
      .addColumn('slug', 'text', notNull)
      .addColumn('ordr', 'integer', notNull)
      .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('definition_published', 'text')
      .addColumn('format_published', 'text')
      .addColumn('definition_draft', 'text')
      .addColumn('format_draft', 'text')
      .addColumn('deleted_at', 'text')
      .addColumn('created', 'text', notNull)
      .addColumn('updated', 'text', notNull)
      .addUniqueConstraint('api_references_version_slug_unique', ['version_id', 'slug'])
      .addUniqueConstraint('api_references_version_title_unique', ['version_id', 'title'])
      .execute();

    await withId(db.schema.createTable('reader_access'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('email', 'text', notNull)
      .addColumn('expires_at', 'text')
      .addColumn('revoked_at', 'text')
      .addColumn('created', 'text', notNull)
      .addColumn('updated', 'text', notNull)
      .addUniqueConstraint('reader_access_project_email_unique', ['project_id', 'email'])
      .execute();

    await withId(db.schema.createTable('audit_log'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('timestamp', 'text', notNull)
      .addColumn('scope', 'text', notNull)
      .addColumn('entity', 'text', notNull)
      .addColumn('entity_id', 'text', notNull)
      .addColumn('operation', 'text', notNull)
      .addColumn('message', 'text', notNull)
      .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('ip_address', 'text')
      .addColumn('user_label', 'text')
      .addColumn('api_key_label', 'text')
      .execute();

    await db.schema.createIndex('api_keys_project_idx').on('api_keys').column('project_id').execute();
    await db.schema
      .createIndex('versions_project_idx')
      .on('versions')
      .columns(['project_id', 'ordr'])
      .execute();
    await db.schema
      .createIndex('documentation_version_idx')
      .on('documentation')
      .columns(['version_id', 'ordr'])
      .execute();
    await db.schema
      .createIndex('categories_documentation_idx')
      .on('categories')
      .columns(['documentation_id', 'position'])
      .execute();
    await db.schema
      .createIndex('pages_documentation_idx')
      .on('pages')
      .columns(['documentation_id', 'position'])
      .execute();
    await db.schema.createIndex('page_history_page_idx').on('page_history').column('page_id').execute();
    await db.schema
      .createIndex('api_references_version_idx')
      .on('api_references')
      .columns(['version_id', 'ordr'])
      .execute();
    await db.schema
      .createIndex('audit_log_project_idx')
      .on('audit_log')
      .columns(['project_id', 'id'])
      .execute();
  },
};
