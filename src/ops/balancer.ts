import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

/**
 * A small HTTP load balancer for running several Quire instances without a container platform (the
 * topology script, and compose's `balancer` service, which runs this file from the same image). It
 * sends each request to the next instance whose `/readyz` answered 200, so a draining or stopped
 * instance gets no new work; it adds `X-Forwarded-For` (set `TRUST_PROXY` on the instances) and
 * follows nothing itself. Not a replacement for a production proxy's TLS, buffering or limits.
 */
export interface BalancerOptions {
  host: string;
  port: number;
  upstreams: readonly URL[];
  /** how often each instance's /readyz is asked */
  healthIntervalMs?: number;
}

export interface Balancer {
  port: number;
  /** the instances that answered their last readiness probe */
  healthy(): URL[];
  close(): Promise<void>;
}

const HEALTH_TIMEOUT_MS = 1_000;
/** A request with no body is sent again to another instance when its instance refused the connection. */
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);

function errorBody(status: number, message: string): string {
  return JSON.stringify({ error: { message, httpCode: status, code: status } });
}

function probe(upstream: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(new URL('/readyz', upstream), { timeout: HEALTH_TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

export async function startBalancer(options: BalancerOptions): Promise<Balancer> {
  const up = new Map<string, boolean>(options.upstreams.map((u) => [u.href, false]));
  let next = 0;
  const healthy = () => options.upstreams.filter((u) => up.get(u.href) === true);
  const check = async () => {
    await Promise.all(options.upstreams.map(async (u) => up.set(u.href, await probe(u))));
  };
  await check();
  const timer = setInterval(() => void check(), options.healthIntervalMs ?? 1_000);
  timer.unref();

  const pick = (exclude: Set<string>): URL | undefined => {
    const candidates = healthy().filter((u) => !exclude.has(u.href));
    if (candidates.length === 0) return undefined;
    return candidates[next++ % candidates.length];
  };

  const forward = (req: http.IncomingMessage, res: http.ServerResponse, tried: Set<string>): void => {
    const target = pick(tried);
    if (!target) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(errorBody(503, 'No Quire instance is ready.'));
      return;
    }
    tried.add(target.href);
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress]
      .filter(Boolean)
      .join(', ');
    const upstream = http.request(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': forwardedFor },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error.code === 'ECONNREFUSED') {
        // Stopped since its last probe: out of the rotation until a probe finds it ready again.
        up.set(target.href, false);
        if (BODYLESS.has(req.method ?? '')) {
          forward(req, res, tried);
          return;
        }
      }
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(errorBody(502, 'The Quire instance did not answer.'));
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (BODYLESS.has(req.method ?? '')) upstream.end();
    else req.pipe(upstream);
  };

  const server = http.createServer((req, res) => forward(req, res, new Set()));
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    healthy,
    close: () =>
      new Promise((resolve) => {
        clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `balancer.js --port 8080 [--host 0.0.0.0] --upstream http://a:8080 --upstream http://b:8080` */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '0.0.0.0' },
      port: { type: 'string' },
      upstream: { type: 'string', multiple: true },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || !values.upstream?.length) {
    process.stderr.write('usage: balancer --port PORT --upstream URL [--upstream URL ...] [--host HOST]\n');
    process.exit(2);
  }
  const balancer = await startBalancer({
    host: values.host,
    port,
    upstreams: values.upstream.map((u) => new URL(u)),
  });
  process.stdout.write(`${JSON.stringify({ balancer: balancer.port, upstreams: values.upstream })}\n`);
  const stop = () => void balancer.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await main();
