import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const KEY = `qk_${'s'.repeat(43)}`;
let child: ChildProcess | undefined;
let dir: string | undefined;

afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts the real server as `npm start` does, on a free port, and waits for it to listen. */
async function startServer(): Promise<{ port: number; output: () => string }> {
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
    expect(output()).toContain(`curl -H 'X-Api-Key: ${KEY}' http://127.0.0.1:${port}/api/v1/version`);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/version`, {
      headers: { 'x-api-key': KEY, 'x-request-id': 'abc-123' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject([{ name: 'v1' }]);
    await new Promise((r) => setTimeout(r, 100));
    const logLine = output()
      .split('\n')
      .find((l) => l.includes('"reqId":"abc-123"'));
    expect(logLine).toBeDefined();
  });

  it('finishes in-flight requests on SIGTERM, then exits 0', async () => {
    const { port } = await startServer();
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
      // Half the body now; SIGTERM arrives while the request is in flight; the rest after.
      req.write(body.slice(0, 5));
      setTimeout(() => {
        child!.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      }, 200);
    });
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    const result = await response;
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ name: 'Drained' });
    expect(await exited).toBe(0);
  });
});
