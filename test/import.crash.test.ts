import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ServerProcess, sendRaw, type RawAnswer } from './helpers/server-process.ts';
import { stagedArchive } from './helpers/staged-archive.ts';
import { TEST_DATABASE_URL } from './helpers/test-app.ts';

// An import killed midway (SIGKILL) leaves nothing anyone sees, and its retry under the same
// Idempotency-Key imports it once: on SQLite what its steps staged is removed when the server starts
// again (decision 0020); on PostgreSQL its one transaction never committed.

const KEY = `qk_${'s'.repeat(43)}`;
const PAGES = 1_000;

let dir: string | undefined;
let server: ServerProcess | undefined;
const admin = TEST_DATABASE_URL ? new pg.Client({ connectionString: TEST_DATABASE_URL }) : undefined;
const databases: string[] = [];

afterEach(async () => {
  await server?.kill();
  server = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

afterAll(async () => {
  if (!admin) return;
  for (const name of databases) await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
});

/** A database of the test's own: a SQLite file, or a new PostgreSQL database. */
async function newDatabaseUrl(): Promise<string> {
  if (!admin || !TEST_DATABASE_URL) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-import-crash-'));
    return `sqlite:${path.join(dir, 'q.db')}`;
  }
  if (databases.length === 0) await admin.connect();
  const name = `quire_import_crash_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  databases.push(name);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.href;
}

/** POST /api/v1/import with the archive as its body, under an Idempotency-Key; null when no answer came. */
function importRaw(port: number, zip: Buffer, key: string): Promise<RawAnswer | null> {
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/import',
        agent: false,
        headers: {
          'x-api-key': KEY,
          'idempotency-key': key,
          'content-type': 'application/zip',
          'content-length': zip.length,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body, headers: response.headers }),
        );
        response.on('error', () => resolve(null));
      },
    );
    request.on('error', () => resolve(null));
    request.end(zip);
  });
}

/** Rows the import's steps committed and left hidden (SQLite), read on a connection of the test's own. */
function stagedRows(url: string): { versions: number; pages: number } {
  const db = new SQLite(url.slice('sqlite:'.length), { readonly: true });
  try {
    const count = (query: string) => Number((db.prepare(query).get() as { n: number }).n);
    return {
      versions: count('select count(*) as n from versions where import_stage is not null'),
      pages: count(`select count(*) as n from pages p join documentation d on d.id = p.documentation_id
        join versions v on v.id = d.version_id where v.import_stage is not null`),
    };
  } finally {
    db.close();
  }
}

async function versionsNamedBig(port: number): Promise<Array<{ id: number }>> {
  const answer = await sendRaw(port, 'GET', '/api/v1/version', { headers: { 'x-api-key': KEY } });
  return (JSON.parse(answer!.body) as Array<{ id: number; name: string }>).filter((v) => v.name === 'Big');
}

async function pageCount(port: number): Promise<number> {
  const answer = await sendRaw(port, 'GET', '/api/v1/all', { headers: { 'x-api-key': KEY } });
  return Object.keys((JSON.parse(answer!.body) as { page?: object }).page ?? {}).length;
}

describe(`an import killed midway (${TEST_DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('leaves nothing, and its retry under the same key imports once', async () => {
    const url = await newDatabaseUrl();
    const env = { DATABASE_URL: url, QUIRE_BOOTSTRAP_KEY: KEY, RATE_LIMIT_SCALE: '1000' };
    const sqlite = url.startsWith('sqlite:');
    const zip = stagedArchive(PAGES);
    server = await ServerProcess.start(env);
    const pagesBefore = await pageCount(server.port);

    let answered: RawAnswer | null | undefined;
    void importRaw(server.port, zip, 'crash-import').then((answer) => (answered = answer));
    if (sqlite) {
      // Killed once a few steps have committed, hidden.
      await expect
        .poll(() => stagedRows(url).pages, { timeout: 60_000, interval: 20 })
        .toBeGreaterThanOrEqual(400);
    } else {
      await sleep(1_500);
    }
    expect(answered, 'the import answered before it could be killed').toBeUndefined();
    await server.kill();
    server = undefined;
    if (sqlite) expect(stagedRows(url).versions).toBe(1);

    server = await ServerProcess.start(env);
    // Nothing of it is seen; on SQLite what it staged is removed as the server starts.
    expect(await versionsNamedBig(server.port)).toEqual([]);
    expect(await pageCount(server.port)).toBe(pagesBefore);
    if (sqlite)
      await expect.poll(() => stagedRows(url), { timeout: 20_000 }).toEqual({ versions: 0, pages: 0 });

    const retried = await importRaw(server.port, zip, 'crash-import');
    expect(retried?.status, retried?.body).toBe(201);
    const replayed = await importRaw(server.port, zip, 'crash-import');
    expect(replayed?.body).toBe(retried?.body);
    expect(await versionsNamedBig(server.port)).toHaveLength(1);
    expect(await pageCount(server.port)).toBe(pagesBefore + PAGES);
    if (sqlite) expect(stagedRows(url)).toEqual({ versions: 0, pages: 0 });
  }, 180_000);
});
