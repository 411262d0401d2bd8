import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BACKGROUND_WRITER_CHECKPOINT_PAGES,
  WalCheckpointer,
  WRITER_CHECKPOINT_PAGES,
} from '../src/db/checkpointer.ts';

// The server's use of it (a real process, writes over HTTP, the file checked after) is in
// server.test.ts; here, what the writer is left with when the thread runs, stops, or cannot start.
let dir: string | undefined;
const opened: SQLite.Database[] = [];

afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function writer(): { db: SQLite.Database; file: string } {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-checkpoint-'));
  const file = path.join(dir, 'w.db');
  const db = new SQLite(file);
  opened.push(db);
  db.pragma('journal_mode = WAL');
  db.exec('create table t (id integer primary key, v text not null)');
  return { db, file };
}

const threshold = (db: SQLite.Database) => db.pragma('wal_autocheckpoint', { simple: true });

describe('WalCheckpointer', () => {
  it('checkpoints beside the writer, which checkpoints nothing itself until the thread stops', async () => {
    const { db, file } = writer();
    const checkpointer = new WalCheckpointer(db, { intervalMs: 10 });
    checkpointer.start();
    expect(threshold(db)).toBe(BACKGROUND_WRITER_CHECKPOINT_PAGES);
    const insert = db.prepare('insert into t (v) values (?)');
    // About 250 WAL pages, far below the writer's threshold: only the thread copies them to the file.
    for (let i = 0; i < 200; i++) insert.run('x'.repeat(500));
    expect(fs.statSync(file).size).toBeLessThan(200 * 500);
    await expect.poll(() => fs.statSync(file).size, { timeout: 5_000 }).toBeGreaterThan(200 * 500);
    // The thread counts a run in a message once its checkpoint is done; the file grows during it.
    await expect.poll(() => checkpointer.stats().runs, { timeout: 5_000 }).toBeGreaterThan(0);
    await checkpointer.close();
    expect(threshold(db)).toBe(WRITER_CHECKPOINT_PAGES);
    expect(checkpointer.stats().failures).toBe(0);
  });

  it('leaves a large commit to the thread rather than copying the WAL inside it', async () => {
    const { db, file } = writer();
    // A thread that does not run within the test: only the writer could copy anything.
    const checkpointer = new WalCheckpointer(db, { intervalMs: 60_000 });
    checkpointer.start();
    const insert = db.prepare('insert into t (v) values (?)');
    // About 5,000 WAL pages (20 MiB), past any threshold of the writer's own.
    db.transaction(() => {
      for (let i = 0; i < 5_000; i++) insert.run(`${i}`.padEnd(4_000, 'x'));
    })();
    expect(fs.statSync(file).size).toBeLessThan(1024 * 1024);
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(20 * 1000 * 1000);
    await checkpointer.close();
  });

  it('hands checkpoints back to the writer when its thread cannot open the file', async () => {
    const { db, file } = writer();
    fs.rmSync(file);
    const told: string[] = [];
    const checkpointer = new WalCheckpointer(db, {
      intervalMs: 10,
      onFailure: (error) => told.push(error.message),
    });
    checkpointer.start();
    await expect.poll(() => checkpointer.stats().failures, { timeout: 5_000 }).toBe(1);
    // Said once, with SQLite's reason, for the server's log.
    expect(told).toEqual([
      expect.stringMatching(/^checkpoint thread stopped \(.*unable to open database file.*\)/),
    ]);
    expect(threshold(db)).toBe(WRITER_CHECKPOINT_PAGES);
    expect(checkpointer.stats().runs).toBe(0);
    await checkpointer.close();
  });

  it('starts nothing for an in-memory database or none (PostgreSQL)', async () => {
    const memory = new SQLite(':memory:');
    opened.push(memory);
    for (const checkpointer of [new WalCheckpointer(memory, { intervalMs: 10 }), new WalCheckpointer(null)]) {
      checkpointer.start();
      expect(checkpointer.stats()).toEqual({ runs: 0, failures: 0 });
      await checkpointer.close();
    }
    expect(threshold(memory)).toBe(WRITER_CHECKPOINT_PAGES);
  });
});
