import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

const KEY = `qk_${'r'.repeat(43)}`;
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The real server on `file`, as `npm start` runs it; resolves with its port, or its output if it exits. */
function serve(file: string): Promise<{ child: ChildProcess; port: number | null; output: () => string }> {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${file}`,
      QUIRE_BOOTSTRAP_KEY: KEY,
      LOG_LEVEL: 'info',
      REDIS_URL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearInterval(timer);
        resolve({ child, port: Number(match[1]), output: () => output });
      }
    }, 25);
    child.on('exit', () => {
      clearInterval(timer);
      resolve({ child, port: null, output: () => output });
    });
  });
}

describe('two servers started together on one new SQLite file', () => {
  // Before: the second process migrated the file too and stopped on a table the first had made, or
  // its bootstrap's first write failed on the first's commit. It happened in about half the tries.
  it('both start; the file is migrated once and holds one demo project', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-race-'));
      dirs.push(dir);
      const file = path.join(dir, 'q.db');
      const servers = await Promise.all([serve(file), serve(file)]);
      for (const server of servers) {
        expect(server.port, server.output()).not.toBeNull();
        const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/version`, {
          headers: { 'x-api-key': KEY },
        });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject([{ name: 'v1' }]);
      }
      // One of them made the demo project and printed its banner; the other found it.
      await expect
        .poll(() => servers.filter((s) => s.output().includes('Created a demo project')).length)
        .toBe(1);
      const exits = servers.map(
        ({ child }) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))),
      );
      for (const { child } of servers) child.kill('SIGTERM');
      expect(await Promise.all(exits)).toEqual([0, 0]);
      const db = new SQLite(file, { readonly: true });
      try {
        expect(db.prepare('select count(*) as n from projects').get()).toEqual({ n: 1 });
        expect(db.prepare('select count(*) as n from api_keys').get()).toEqual({ n: 1 });
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        db.close();
      }
    }
  }, 60_000);
});
