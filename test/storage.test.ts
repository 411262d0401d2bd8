import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/dialect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { createProject, createVersion } from './helpers/factories.ts';
import { undoHistoryNewestIndex } from './helpers/later-migrations.ts';
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
        'reference_revisions',
        'users',
        'versions',
      ]),
    );
    expect(await upgradeDatabase(t.deps.database, t.storage.schema)).toEqual([]);
  });

  it('refuses a database a newer build migrated, and applies a migration that is missing', async () => {
    const db = t.deps.database.db;
    const table = t.storage.schema
      ? sql.id(t.storage.schema, 'kysely_migration')
      : sql.id('kysely_migration');
    await sql`insert into ${table} (name, timestamp) values ('9999-from-a-newer-build', 'now')`.execute(db);
    await expect(upgradeDatabase(t.deps.database, t.storage.schema)).rejects.toThrow(
      /a newer Quire migrated: 9999-from-a-newer-build is a migration this build does not know/,
    );
    await sql`delete from ${table} where name = '9999-from-a-newer-build'`.execute(db);
    // A database the build before the last migration migrated: the next start applies that
    // migration, and only it.
    await undoHistoryNewestIndex(db);
    await sql`delete from ${table} where name = '0025-history-newest-index'`.execute(db);
    expect(await upgradeDatabase(t.deps.database, t.storage.schema)).toEqual(['0025-history-newest-index']);
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

  it('turns a SQLite file to WAL once another process lets go of it, rather than failing at once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-wal-'));
    const file = path.join(dir, 'q.db');
    const seed = new SQLite(file);
    seed.exec('create table t (x integer)');
    seed.close();
    // Another process holds the file, still in rollback mode, exclusively for 400 ms: as one that is
    // turning it to WAL itself does. SQLite runs no busy handler for the conversion.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1]);
         db.exec('begin immediate');
         process.stdout.write('held\\n');
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
         db.exec('commit');
         db.close();`,
        file,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
      const handle = openDatabase(`sqlite:${file}`);
      try {
        expect(handle.sqlite!.pragma('journal_mode', { simple: true })).toBe('wal');
        expect(handle.readerSqlite!.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        await handle.close();
      }
    } finally {
      if (holder.exitCode === null) await new Promise((resolve) => holder.once('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads SQLite files through a memory map of SQLITE_MMAP_MB on both connections, none at 0', async () => {
    if (t.deps.database.sqlite !== null) {
      // The app's connections, at the default of 1 GiB.
      expect(t.deps.database.sqlite.pragma('mmap_size', { simple: true })).toBe(1024 * 1024 * 1024);
      expect(t.deps.database.readerSqlite!.pragma('mmap_size', { simple: true })).toBe(1024 * 1024 * 1024);
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-mmap-'));
    try {
      for (const bytes of [0, 64 * 1024 * 1024]) {
        const handle = openDatabase(`sqlite:${path.join(dir, `m${bytes}.db`)}`, { sqliteMmapBytes: bytes });
        try {
          expect(handle.sqlite!.pragma('mmap_size', { simple: true })).toBe(bytes);
          expect(handle.readerSqlite!.pragma('mmap_size', { simple: true })).toBe(bytes);
          // Rows larger than a database page, written by the writer, read back whole by the reader.
          handle.sqlite!.exec('create table big (id integer primary key, body text not null)');
          const bodies = Array.from({ length: 40 }, (_, i) => `${i}-${'n'.repeat(9000 + i)}`);
          const insert = handle.sqlite!.prepare('insert into big (body) values (?)');
          for (const body of bodies) insert.run(body);
          const read = handle.readerSqlite!.prepare('select body from big order by id').pluck().all();
          expect(read).toEqual(bodies);
        } finally {
          await handle.close();
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('migrates a SQLite file in one transaction: a failure half-way leaves it as it was', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-migrate-'));
    const handle = openDatabase(`sqlite:${path.join(dir, 'q.db')}`);
    try {
      const tables = () =>
        handle
          .sqlite!.prepare("select name from sqlite_master where type = 'table' order by name")
          .pluck()
          .all();
      // The seventh of eleven migrations fails after its own statements ran.
      await expect(
        migrateToLatest(handle, undefined, {
          '0007-search-posts': () => Promise.reject(new Error('stopped in 0007')),
        }),
      ).rejects.toThrow('stopped in 0007');
      expect(tables()).toEqual([]);
      expect(handle.sqlite!.inTransaction).toBe(false);
      // The next start migrates it whole.
      expect(await upgradeDatabase(handle)).toEqual(
        expect.arrayContaining(['0001-initial', '0007-search-posts']),
      );
      expect(tables()).toEqual(expect.arrayContaining(['pages', 'projects', 'search_entries']));
    } finally {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds an up-to-date SQLite file so without waiting for a write another process holds', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-migrate-'));
    const file = path.join(dir, 'q.db');
    const handle = openDatabase(`sqlite:${file}`);
    const other = new SQLite(file);
    try {
      await upgradeDatabase(handle);
      other.exec('BEGIN IMMEDIATE');
      // Taking the write lock would wait up to ten minutes for the other connection.
      const started = Date.now();
      expect(await upgradeDatabase(handle)).toEqual([]);
      expect(Date.now() - started).toBeLessThan(2_000);
      other.exec('ROLLBACK');
    } finally {
      other.close();
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('maps a unique violation to a conflict on both dialects', async () => {
    const project = await createProject(t.deps);
    await createVersion(t.deps, project.id, { name: 'One', slug: 'one' });
    await expect(createVersion(t.deps, project.id, { name: 'Again', slug: 'one' })).rejects.toMatchObject({
      status: 409,
    });
  });
});
