import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './helpers/test-app.ts';

/** A port nothing listens on now: the topology takes its ports from the command line. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Started {
  balancer: number;
  instances: number[];
  pids: number[];
  key: string | null;
}

/** The topology's one JSON line, once every part is ready. */
function startedLine(child: ChildProcess): Promise<Started> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-4000);
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Started);
    });
    child.once('exit', (code) => reject(new Error(`the topology exited (${code}):\n${err}`)));
  });
}

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// compose.yaml's topology, run without containers: two instances, one PostgreSQL database (a new one
// here), one Redis, the balancer in front. It needs both servers, so it runs where .ci/run gives them.
describe.runIf(TEST_DATABASE_URL !== undefined && TEST_REDIS_URL !== undefined)(
  'two instances behind the balancer, on one PostgreSQL and one Redis',
  () => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    const database = `quire_topology_${randomBytes(4).toString('hex')}`;
    let topology: ChildProcess | null = null;

    afterAll(async () => {
      if (topology && topology.exitCode === null) {
        topology.kill('SIGTERM');
        await exited(topology);
      }
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    });

    it('serves, shares data and rate limits, survives an instance going, and stops cleanly', async () => {
      await admin.connect();
      await admin.query(`create database ${database}`);
      const url = new URL(TEST_DATABASE_URL!);
      url.pathname = `/${database}`;
      const [port, a, b] = [await freePort(), await freePort(), await freePort()];
      topology = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/ops/topology.ts',
          '--database-url',
          url.href,
          '--redis-url',
          TEST_REDIS_URL!,
          '--port',
          String(port),
          '--instance-ports',
          `${a},${b}`,
        ],
        // A Redis prefix of its own, so its counters meet no other test's.
        { env: { ...process.env, REDIS_KEY_PREFIX: `${database}:` }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const started = await startedLine(topology);
      expect(started).toMatchObject({ balancer: port, instances: [a, b] });
      // Both instances started on the empty database together; one made the demo project.
      expect(started.key).toMatch(/^qk_/);
      const key = started.key!;
      const call = (base: number, path: string, init: RequestInit = {}) =>
        fetch(`http://127.0.0.1:${base}/api/v1${path}`, {
          ...init,
          headers: { 'x-api-key': key, 'content-type': 'application/json', ...init.headers },
        });

      const versions = (await (await call(port, '/version')).json()) as { id: number; slug: string }[];
      expect(versions.map((v) => v.slug)).toEqual(['v1']);
      const sections = (await (await call(port, `/version/${versions[0]!.id}/documentation`)).json()) as {
        id: number;
      }[];
      const created = await call(port, `/documentation/${sections[0]!.id}/page`, {
        method: 'POST',
        body: JSON.stringify({ title: 'Through the balancer', content: 'First words.' }),
      });
      expect(created.status).toBe(200);
      const page = (await created.json()) as { id: number };
      expect((await call(port, `/page/${page.id}/publish`, { method: 'PUT' })).status).toBe(200);

      // Written through one instance, read at once from each.
      expect(
        (await call(a, `/page/${page.id}`, { method: 'PUT', body: JSON.stringify({ content: 'Second.' }) }))
          .status,
      ).toBe(200);
      for (const instance of [a, b, port, port]) {
        const read = (await (await call(instance, `/page/${page.id}`)).json()) as { contentDraft: string };
        expect(read.contentDraft).toBe('Second.');
      }

      // GET /all allows 30 an hour per key; the balancer spreads them over both instances, and Redis
      // counts them together.
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) statuses.push((await call(port, '/all')).status);
      expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
      expect(statuses[30]).toBe(429);

      // One instance goes: the balancer sends everything to the other.
      process.kill(started.pids[0]!, 'SIGTERM');
      for (let waited = 0; alive(started.pids[0]!) && waited < 20_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(alive(started.pids[0]!)).toBe(false);
      for (let i = 0; i < 6; i++) expect((await call(port, `/page/${page.id}`)).status).toBe(200);

      topology.kill('SIGTERM');
      expect(await exited(topology)).toBe(0);
      expect(alive(started.pids[1]!)).toBe(false);
    });
  },
);
