import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';

/** A response as it came, or null when none did (the server died, or was not there). */
export interface RawAnswer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * The real server (`bin/quire serve`) in a process of its own, on a free port of 127.0.0.1, with the
 * environment given over the test's (in-process counters unless REDIS_URL is given).
 */
export class ServerProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly output: () => string,
  ) {}

  static async start(env: Record<string, string>): Promise<ServerProcess> {
    let output = '';
    const child = spawn(process.execPath, ['bin/quire', 'serve'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', REDIS_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (match) {
          clearInterval(timer);
          resolve(Number(match[1]));
        }
      }, 20);
      child.on('exit', () => {
        clearInterval(timer);
        reject(new Error(`server exited early:\n${output}`));
      });
    });
    return new ServerProcess(child, port, () => output);
  }

  /** SIGKILL: no drain, no hook, no last write. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
  }
}

/** One request on a connection of its own; null when no answer came. */
export function sendRaw(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<RawAnswer | null> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: {
          ...(payload !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
          ...options.headers,
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
    request.end(payload);
  });
}
