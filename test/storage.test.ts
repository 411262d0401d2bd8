import { describe, expect, it } from 'vitest';
import { upgradeDatabase } from '../src/upgrade.ts';
import { createProject, createVersion } from './helpers/factories.ts';
import { dialectName, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

describe(`storage (${dialectName})`, () => {
  it('creates the whole data model, and migrating again applies nothing', async () => {
    const tables = await t.deps.database.db.introspection.getTables();
    expect(tables.map((table) => table.name).sort()).toEqual(
      expect.arrayContaining([
        'api_keys',
        'api_references',
        'audit_log',
        'categories',
        'documentation',
        'page_history',
        'pages',
        'projects',
        'reader_access',
        'users',
        'versions',
      ]),
    );
    expect(await upgradeDatabase(t.deps.database, t.storage.schema)).toEqual([]);
  });

  it('runs SQLite in WAL mode with foreign keys enforced', async () => {
    const sqlite = t.deps.database.sqlite;
    if (t.deps.database.dialect === 'postgres') {
      expect(sqlite).toBeNull();
      return;
    }
    expect(sqlite!.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqlite!.pragma('foreign_keys', { simple: true })).toBe(1);
    await expect(
      t.deps.database.db
        .insertInto('versions')
        .values({
          project_id: 999,
          name: 'x',
          slug: 'x',
          published: 0,
          ordr: 1,
          deleted_at: null,
          created: 'now',
          updated: 'now',
        })
        .execute(),
    ).rejects.toThrow(/FOREIGN KEY/);
  });

  it('maps a unique violation to a conflict on both dialects', async () => {
    const project = await createProject(t.deps);
    await createVersion(t.deps, project.id, { name: 'One', slug: 'one' });
    await expect(createVersion(t.deps, project.id, { name: 'Again', slug: 'one' })).rejects.toMatchObject({
      status: 409,
    });
  });
});
