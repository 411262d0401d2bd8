import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * `npm start` as an operator runs it: npm starts a shell, which starts the server. A signal to npm
 * (a supervisor's stop, Ctrl-C) must stop the server, not leave it listening without a parent.
 */

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const refuses = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'stops the server when npm gets %s',
    { timeout: 90_000 },
    async (signal) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-npm-start-'));
      let output = '';
      let serverPid: number | undefined;
      const npm = spawn('npm', ['start', '--silent'], {
        env: {
          ...process.env,
          PORT: '0',
          HOST: '127.0.0.1',
          DATABASE_URL: `sqlite:${path.join(dir, 'quire.db')}`,
          QUIRE_BOOTSTRAP: 'false',
          LOG_LEVEL: 'info',
          REDIS_URL: '',
          SHUTDOWN_TIMEOUT: '5000',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      npm.stdout.on('data', (d: Buffer) => (output += d.toString()));
      npm.stderr.on('data', (d: Buffer) => (output += d.toString()));
      try {
        const listening = () => /"pid":(\d+).*listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        expect(await until(() => listening() !== null, 60_000), output).toBe(true);
        const [, pid = '', port = ''] = listening() ?? [];
        serverPid = Number(pid);
        // The server is a process of its own, under npm.
        expect(serverPid).not.toBe(npm.pid);
        expect(await refuses(Number(port))).toBe(false);

        const exited = once(npm, 'exit');
        npm.kill(signal);
        // npm waits for the server it started, when the signal reached it.
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
        expect(await until(() => !alive(serverPid ?? 0), 15_000), `server ${serverPid} still runs`).toBe(
          true,
        );
        expect(await refuses(Number(port))).toBe(true);
        expect(output).toMatch(/draining/);
      } finally {
        if (serverPid !== undefined && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
        if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
