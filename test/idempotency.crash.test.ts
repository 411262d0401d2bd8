import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ServerProcess, sendRaw, type RawAnswer } from './helpers/server-process.ts';
import { TEST_DATABASE_URL } from './helpers/test-app.ts';

// Exactly once under crashes (extensions §2): a real server is killed (SIGKILL) at random moments
// while it runs creates under Idempotency-Key, started again, and every create retried with its key
// until it is answered. Each page must exist once, and every answer to a key must equal the first.
// On PostgreSQL the same again with the pool stalled: the table of keys is locked for longer than
// the statement timeout while the creates run.

const KEY = `qk_${'c'.repeat(43)}`;
const WRITES = 32;
const CYCLES = 8;

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
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-crash-'));
    return `sqlite:${path.join(dir, 'q.db')}`;
  }
  if (databases.length === 0) await admin.connect();
  const name = `quire_crash_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  databases.push(name);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.href;
}

interface Write {
  key: string;
  title: string;
  /** the first answer the client got (2xx), which every later answer must equal */
  first: RawAnswer | null;
  answers: number;
}

/** Requests sent and not yet answered (or failed). */
let inFlight = 0;
/** Told when a write gets its first answer. */
let onFirstAnswer: (() => void) | null = null;

/** Sends one create under its key; records its answer. True when it was answered. */
async function send(port: number, section: number, write: Write): Promise<boolean> {
  inFlight++;
  const answer = await sendRaw(port, 'POST', `/api/v1/documentation/${section}/page`, {
    headers: { 'x-api-key': KEY, 'idempotency-key': write.key },
    body: { title: write.title, content: `Body of ${write.title}` },
  }).finally(() => inFlight--);
  if (answer === null || answer.status === 409 || answer.status === 503) return false;
  expect(answer.status, answer.body).toBe(200);
  write.answers++;
  if (write.first === null) {
    onFirstAnswer?.();
    write.first = answer;
  } else expect(answer.body).toBe(write.first.body);
  return true;
}

/** Sends every write again and again, answered or not (a replay checks the first answer), until `until`. */
async function hammer(port: number, section: number, writes: Write[], until: Promise<unknown>) {
  let stop = false;
  void until.then(() => (stop = true));
  await Promise.all(
    writes.map(async (write) => {
      while (!stop) {
        await send(port, section, write);
        await new Promise((r) => setTimeout(r, Math.random() * 20));
      }
    }),
  );
}

/** Retries each write with its key until it is answered, on a server that stays up. */
async function answerAll(port: number, section: number, writes: Write[]): Promise<void> {
  for (const write of writes) {
    await expect.poll(() => send(port, section, write), { timeout: 20_000, interval: 100 }).toBe(true);
  }
}

/** Each write's page exists once, and is the page its answers name. */
async function expectOnce(port: number, writes: Write[]): Promise<void> {
  const listed = await sendRaw(port, 'GET', `/api/v1/all`, { headers: { 'x-api-key': KEY } });
  expect(listed?.status).toBe(200);
  const pages = Object.entries(
    (JSON.parse(listed!.body) as { page: Record<string, { title: string }> }).page,
  ).filter(([, page]) => writes.some((write) => write.title === page.title));
  expect(pages.map(([, page]) => page.title).sort()).toEqual(writes.map((write) => write.title).sort());
  for (const write of writes) {
    const { id } = JSON.parse(write.first!.body) as { id: number };
    expect(pages.find(([, page]) => page.title === write.title)?.[0]).toBe(String(id));
  }
}

async function firstSection(port: number): Promise<number> {
  const versions = await sendRaw(port, 'GET', '/api/v1/version', { headers: { 'x-api-key': KEY } });
  const [version] = JSON.parse(versions!.body) as Array<{ id: number }>;
  const sections = await sendRaw(port, 'GET', `/api/v1/version/${version!.id}/documentation`, {
    headers: { 'x-api-key': KEY },
  });
  return (JSON.parse(sections!.body) as Array<{ id: number }>)[0]!.id;
}

const newWrites = (label: string, count = WRITES): Write[] =>
  Array.from({ length: count }, (_, i) => ({
    key: `${label}-${i}`,
    title: `Crash ${label} ${i}`,
    first: null,
    answers: 0,
  }));

describe(`Idempotency-Key under crashes (${TEST_DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('makes each change once and answers every retry as the first, across SIGKILL at random moments', async () => {
    const env = { DATABASE_URL: await newDatabaseUrl(), QUIRE_BOOTSTRAP_KEY: KEY, RATE_LIMIT_SCALE: '1000' };
    const writes: Write[] = [];
    let section = 0;
    let killedMidRequest = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      server = await ServerProcess.start(env);
      if (section === 0) section = await firstSection(server.port);
      const before = writes.reduce((n, w) => n + w.answers, 0);
      // New creates every time, so that each kill can meet creates under way; with them, those of
      // earlier times still unanswered, and a few answered ones, whose replays must equal the first.
      const fresh = newWrites(`kill${cycle}`, WRITES / 2);
      const sent = [
        ...fresh,
        ...writes.filter((write) => write.first === null),
        ...writes.filter((write) => write.first !== null).slice(-8),
      ];
      writes.push(...fresh);
      // Killed 50 to 400 ms into a stream of creates and replays, or sooner (below).
      const running = server;
      const killed = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50 + Math.random() * 350);
        // Every other time, as soon as a create is first answered: the creates sent with it are then
        // at every stage, some committed and not yet answered.
        if (cycle % 2 === 1) {
          onFirstAnswer = () => {
            clearTimeout(timer);
            resolve();
          };
        }
      }).then(() => {
        onFirstAnswer = null;
        if (inFlight > 0) killedMidRequest++;
        return running.kill();
      });
      await hammer(running.port, section, sent, killed);
      await killed;
      server = undefined;
      expect(writes.reduce((n, w) => n + w.answers, 0)).toBeGreaterThanOrEqual(before);
    }
    server = await ServerProcess.start(env);
    await answerAll(server.port, section, writes);
    await expectOnce(server.port, writes);
    expect(killedMidRequest).toBeGreaterThan(CYCLES / 2);
  }, 180_000);

  it.runIf(TEST_DATABASE_URL !== undefined)(
    'makes each change once when the pool stalls past the statement timeout between change and answer',
    async () => {
      const url = await newDatabaseUrl();
      const env = {
        DATABASE_URL: url,
        QUIRE_BOOTSTRAP_KEY: KEY,
        DATABASE_STATEMENT_TIMEOUT: '500',
        RATE_LIMIT_SCALE: '1000',
      };
      server = await ServerProcess.start(env);
      const section = await firstSection(server.port);
      const writes = newWrites('stall');
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
      try {
        // While creates run, the keys' table is locked for 1.5 s, three statement timeouts: creates
        // under way then, their changes made, wait for it to keep their answers.
        const stalled = (async () => {
          // Once some creates have answered: the others are under way.
          while (writes.filter((write) => write.first !== null).length < 4) await pause(2);
          await locker.query('begin');
          await locker.query('lock table idempotency_keys in access exclusive mode');
          await pause(1_500);
          await locker.query('commit');
          await pause(300);
        })();
        await hammer(server.port, section, writes, stalled);
        await stalled;
      } finally {
        await locker.end();
      }
      await answerAll(server.port, section, writes);
      await expectOnce(server.port, writes);
    },
    60_000,
  );
});
