import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

const KEY = `qk_${'s'.repeat(43)}`;
let child: ChildProcess | undefined;
let dir: string | undefined;

afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts the real server as `npm start` does, on a free port, and waits for it to listen. */
async function startServer(
  env: Record<string, string> = {},
): Promise<{ port: number; output: () => string }> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-server-'));
  let output = '';
  child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${path.join(dir, 'q.db')}`,
      QUIRE_BOOTSTRAP_KEY: KEY,
      LOG_LEVEL: 'info',
      REDIS_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearInterval(timer);
        resolve(Number(match[1]));
      }
    }, 50);
    child!.on('exit', () => {
      clearInterval(timer);
      reject(new Error(`server exited early:\n${output}`));
    });
  });
  return { port, output: () => output };
}

describe('the server process', () => {
  it('prints the bootstrap key and a curl line, logs the request id, serves the API', async () => {
    const { port, output } = await startServer();
    // The banner follows the listening line through another writer: it may arrive a moment later.
    await expect
      .poll(output, { timeout: 5_000 })
      .toContain(`curl -H 'X-Api-Key: ${KEY}' http://127.0.0.1:${port}/api/v1/version`);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/version`, {
      headers: { 'x-api-key': KEY, 'x-request-id': 'abc-123' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject([{ name: 'v1' }]);
    await new Promise((r) => setTimeout(r, 100));
    const lines = output()
      .split('\n')
      .filter((l) => l.includes('"reqId":"abc-123"'));
    // One line per request, saying what was asked, how it was answered and how long it took.
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 30,
      reqId: 'abc-123',
      method: 'GET',
      url: '/api/v1/version',
      statusCode: 200,
      responseTime: expect.any(Number) as number,
      msg: 'request completed',
    });
  });

  /**
   * A PUT whose body arrives in two parts: SIGTERM after the first, the rest `restAfterMs` later.
   * Answers the response and the exit code.
   */
  async function putAcrossSigterm(
    port: number,
    restAfterMs: number,
  ): Promise<{ status: number; body: string; exit: number | null }> {
    const body = JSON.stringify({ name: 'Drained' });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'PUT',
          path: '/api/v1/version/1',
          headers: {
            'x-api-key': KEY,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      // Part of the body now; SIGTERM arrives while the request is in flight; the rest after.
      req.write(body.slice(0, 5));
      setTimeout(() => {
        child!.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), restAfterMs);
      }, 200);
    });
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    return { ...(await response), exit: await exited };
  }

  it('finishes in-flight requests on SIGTERM, then exits 0', async () => {
    const { port, output } = await startServer();
    const result = await putAcrossSigterm(port, 300);
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ name: 'Drained' });
    // The server's log says why when it did not exit cleanly.
    expect(result.exit, output()).toBe(0);
  });

  it('waits for a request in flight as long as SHUTDOWN_TIMEOUT allows, past the 10 s Fastify gives close hooks', async () => {
    const { port, output } = await startServer({ SHUTDOWN_TIMEOUT: '20000' });
    const result = await putAcrossSigterm(port, 11_000);
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ name: 'Drained' });
    expect(result.exit, output()).toBe(0);
    expect(output()).not.toContain('shutdown failed');
  }, 40_000);

  it('answers every request received before SIGTERM under load (reads and uploads), with no reset', async () => {
    const { port, output } = await startServer({ RATE_LIMIT_SCALE: '1000' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const call = (
      method: string,
      url: string,
      body?: Buffer,
      onWritten?: () => void,
      viaAgent: http.Agent = agent,
    ) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method,
            path: `/api/v1${url}`,
            agent: viaAgent,
            headers: {
              'x-api-key': KEY,
              ...(body ? { 'content-type': 'application/json', 'content-length': body.length } : {}),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.on('finish', () => onWritten?.());
        req.end(body);
      });

    const sections = JSON.parse((await call('GET', '/version/1/documentation')).body) as Array<{
      id: number;
    }>;
    const content = Array.from(
      { length: 400 },
      (_, i) => `## Part ${i}\n\nSome *text* with a [link](https://example.com/${i}).`,
    ).join('\n\n');
    const page = JSON.parse(
      (
        await call(
          'POST',
          `/documentation/${sections[0]!.id}/page`,
          Buffer.from(JSON.stringify({ title: 'Read me', content })),
        )
      ).body,
    ) as { id: number };
    // A connection opened before the signal and left idle: a request written to it after the signal
    // (within the grace) is still answered, with Connection: close.
    const idleAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await call('GET', '/version', undefined, undefined, idleAgent)).status).toBe(200);

    const definition = (n: number) =>
      Buffer.from(
        JSON.stringify({
          openapi: '3.1.0',
          info: { title: `Drained API ${n}`, version: '1' },
          paths: Object.fromEntries(
            Array.from({ length: 1500 }, (_, i) => [
              `/items${i}/{id}`,
              {
                get: {
                  parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
                  responses: { '200': { description: `Item ${i}` } },
                },
              },
            ]),
          ),
        }),
      );
    let written = 0;
    const total = 48;
    let allWritten!: () => void;
    const sent = new Promise<void>((resolve) => (allWritten = resolve));
    const onWritten = () => {
      if (++written === total) allWritten();
    };
    const settled = [
      ...Array.from({ length: 40 }, () => call('GET', `/page/${page.id}?format=html`, undefined, onWritten)),
      ...Array.from({ length: 8 }, (_, n) => call('POST', '/version/1/reference', definition(n), onWritten)),
    ].map((p) =>
      p.then(
        (r) => ({ ok: true as const, ...r }),
        (error: Error) => ({ ok: false as const, error }),
      ),
    );
    let answeredBeforeSignal = 0;
    void Promise.all(settled.map((p) => p.then(() => answeredBeforeSignal++)));

    await sent;
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    child!.kill('SIGTERM');
    const inFlightAtSignal = total - answeredBeforeSignal;
    // Once the server says it is draining (new connections are still taken during the grace), a
    // request on the idle connection is answered, and told to close.
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (ready.status === 503) {
        expect(await ready.json()).toEqual({ status: 'draining' });
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const late = await call('GET', '/version', undefined, undefined, idleAgent);

    const results = await Promise.all(settled);
    const failures = results.filter((r) => !r.ok);
    expect(failures.map((f) => (f.ok ? '' : f.error.message))).toEqual([]);
    expect(results.map((r) => (r.ok ? r.status : 0)).sort()).toEqual(
      [...Array.from({ length: 8 }, () => 201), ...Array.from({ length: 40 }, () => 200)].sort(),
    );
    expect(inFlightAtSignal).toBeGreaterThan(0);
    expect(late.status).toBe(200);
    expect(late.connection).toBe('close');
    // The server's log says why when it did not exit cleanly.
    expect(await exited, output()).toBe(0);
    // Listening stopped: a new connection is refused, not reset.
    await expect(call('GET', '/version', undefined, undefined, new http.Agent())).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    agent.destroy();
    idleAgent.destroy();
  }, 60_000);
  it('copies the SQLite WAL into the file on a thread of its own while pages are written, losing none', async () => {
    const { port, output } = await startServer({ RATE_LIMIT_SCALE: '1000' });
    const base = `http://127.0.0.1:${port}/api/v1`;
    const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
    const ids: number[] = [];
    for (let i = 0; i < 16; i++) {
      const res = await fetch(`${base}/documentation/1/page`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ title: `Checkpointed ${i}`, content: `first ${i}` }),
      });
      expect(res.status).toBe(200);
      ids.push(((await res.json()) as { id: number }).id);
    }
    // Eight clients at once, each on pages of its own: the last content of every page is known.
    const last = new Map<number, string>();
    await Promise.all(
      Array.from({ length: 8 }, async (_, client) => {
        const mine = ids.filter((_id, index) => index % 8 === client);
        for (let n = 0; n < 30; n++) {
          const id = mine[n % mine.length]!;
          const content = `# Update ${n}\n\n${'Text of client ' + client + '. '.repeat(40)}`;
          const res = await fetch(`${base}/page/${id}`, {
            method: 'PUT',
            headers,
            body: JSON.stringify({ content }),
          });
          expect(res.status).toBe(200);
          last.set(id, content);
        }
      }),
    );
    const checkpoints = async () => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(/^quire_sqlite_checkpoints_total (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    await expect.poll(checkpoints, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toMatch(
      /^quire_sqlite_checkpoint_failures_total 0$/m,
    );
    for (const [id, content] of last) {
      const res = await fetch(`${base}/page/${id}`, { headers });
      expect(((await res.json()) as { contentDraft: string }).contentDraft).toBe(content);
    }
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    child!.kill('SIGTERM');
    expect(await exited, output()).toBe(0);
    // The file alone, as the next start finds it: whole, with every write in it.
    const file = new SQLite(path.join(dir!, 'q.db'), { readonly: true });
    try {
      expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
      const read = file.prepare<[number], { content_draft: string }>(
        'select content_draft from pages where id = ?',
      );
      for (const [id, content] of last) expect(read.get(id)?.content_draft).toBe(content);
    } finally {
      file.close();
    }
  }, 60_000);
});
