import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../src/http/docs.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

const CHROMIUM = '/usr/bin/chromium';
/** Chromium gives up on its own well before the test's timeout; this is for a hung browser. */
const BROWSER_KILL_MS = 60_000;

interface Operation {
  method: string;
  path: string;
  operationId: string;
}

function operationsOf(doc: { paths: Record<string, Record<string, { operationId?: string }>> }): Operation[] {
  return Object.entries(doc.paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: p,
      operationId: op.operationId ?? '',
    })),
  );
}

/** The src and href attributes of a page: what a browser would load from it. */
const referencesIn = (html: string): string[] =>
  [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');

/** An absolute (`https:`…) or network-path (`//host`) reference: it could name another host. */
const namesAHost = (ref: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(ref) || ref.startsWith('//');

describe('GET /docs over HTTP', () => {
  it('answers an HTML page with its own policy, without a key or a rate limit', async () => {
    for (const url of ['/docs', '/docs/']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(DOCS_CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      expect(res.body).toContain('<div id="swagger-ui"></div>');
      expect(res.body).not.toMatch(/https?:\/\//);
    }
    expect(DOCS_CSP).toContain("default-src 'self'");
    expect(DOCS_CSP).not.toContain('unsafe-');
  });

  it('serves every script, stylesheet and icon of the page itself', async () => {
    for (const page of ['/docs', '/docs/']) {
      const html = (await t.app.inject({ method: 'GET', url: page })).body;
      const refs = referencesIn(html);
      expect(refs.filter((r) => r.endsWith('.js'))).toHaveLength(3);
      expect(refs.filter((r) => r.endsWith('.css'))).toHaveLength(2);
      for (const ref of refs) {
        expect(namesAHost(ref), ref).toBe(false);
        // Relative: behind a proxy that serves Quire under /quire, the files are under /quire too.
        expect(new URL(ref, `http://proxy.test/quire${page}`).pathname, ref).toMatch(
          /^\/quire\/docs\/static\//,
        );
        const url = new URL(ref, `http://127.0.0.1${page}`);
        expect(url.host, ref).toBe('127.0.0.1');
        const asset = await t.app.inject({ method: 'GET', url: url.pathname });
        expect(asset.statusCode, url.pathname).toBe(200);
        expect(asset.headers['content-security-policy']).toBe(DOCS_CSP);
        expect(asset.headers['x-content-type-options']).toBe('nosniff');
        const type = String(asset.headers['content-type']);
        if (ref.endsWith('.js')) expect(type).toMatch(/^(application|text)\/javascript/);
        if (ref.endsWith('.css')) expect(type).toMatch(/^text\/css/);
      }
    }
  });

  it('points the page at its own document, the one /api/v1/openapi.json serves, and at no validator', async () => {
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
    const code = initializer.body;
    expect(code).toContain("url: resolveUrl('./json')");
    expect(code).toContain('validatorUrl: null');
    expect(code).toContain('"layout":"BaseLayout"');
    // The plugin's template cites a web page in a comment; no code names another host.
    expect(code.replace(/^\s*\/\/.*$/gm, '')).not.toMatch(/https?:\/\//);

    const shown = await t.app.inject({ method: 'GET', url: '/docs/json' });
    const served = await client(t.app).get('/openapi.json');
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual(served.json());
    expect(operationsOf(served.json()).length).toBeGreaterThan(0);
  });

  it('leaves the JSON API as it was: its document, its 404s, its preflights, its headers', async () => {
    const doc = (await client(t.app).get('/openapi.json')).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths).filter((p) => p.includes('docs') || p.includes('static'))).toEqual([]);

    for (const url of ['/docs/nope', '/docs/static/nope.js', '/api/v1/nope', '/nope']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(expectErrorShape(res).message).toBe(`Route GET ${url} not found.`);
    }
    const unknown = await client(t.app).get('/nope');
    expect(unknown.headers['content-security-policy']).toBeUndefined();

    // A browser on another origin gets no CORS answer from /docs, and the API's preflights are as before.
    const docsPreflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/docs',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
    });
    expect(docsPreflight.statusCode).toBe(404);
    expect(docsPreflight.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/search?query=x',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['content-security-policy']).toBeUndefined();

    const health = await client(t.app).get('/healthz');
    expect(health.json()).toEqual({ status: 'ok' });
    expect(health.headers['content-security-policy']).toBeUndefined();
    expect(health.headers['x-content-type-options']).toBeUndefined();
  });
});

interface BrowserRun {
  dom: string;
  /** what the page wrote to its console, CSP violations included */
  console: string[];
  /** every request Chromium started, with the origin that caused it */
  requests: Array<{ url: string; initiator: string; isolationKey: string }>;
}

/**
 * Loads a page in headless Chromium and returns its DOM once scripts settled (virtual time lets
 * timers run without waiting for them). Every host name but 127.0.0.1 fails to resolve, so a page
 * needing a CDN would render without it; the net log records what was asked for all the same.
 */
async function renderInChromium(url: string): Promise<BrowserRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-chromium-'));
  const netLog = path.join(dir, 'net-log.json');
  try {
    // Its own process group: the browser's helper processes go with it if it must be killed.
    const browser = spawn(
      CHROMIUM,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-extensions',
        '--disable-sync',
        `--user-data-dir=${path.join(dir, 'profile')}`,
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
        `--log-net-log=${netLog}`,
        '--enable-logging=stderr',
        '--v=0',
        '--virtual-time-budget=10000',
        '--dump-dom',
        url,
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let dom = '';
    let log = '';
    browser.stdout.on('data', (chunk: Buffer) => (dom += chunk.toString()));
    browser.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const killer = setTimeout(() => {
      try {
        if (browser.pid !== undefined) process.kill(-browser.pid, 'SIGKILL');
      } catch {
        // It exited between the timer firing and the kill: nothing left to stop.
      }
    }, BROWSER_KILL_MS);
    const code = await new Promise<number | null>((resolve, reject) => {
      browser.on('error', reject);
      browser.on('close', (exitCode) => resolve(exitCode));
    }).finally(() => clearTimeout(killer));
    if (code !== 0) throw new Error(`chromium exited with ${code}:\n${log.slice(-4_000)}`);

    const consoleLines = log.split('\n').filter((line) => line.includes(':CONSOLE'));
    return { dom, console: consoleLines, requests: startedRequests(fs.readFileSync(netLog, 'utf8')) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The requests of a Chromium net log (the JSON written by --log-net-log). */
function startedRequests(json: string): BrowserRun['requests'] {
  const log = JSON.parse(json) as {
    constants: { logEventTypes: Record<string, number> };
    events: Array<{
      type: number;
      params?: { url?: unknown; initiator?: unknown; network_isolation_key?: unknown };
    }>;
  };
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const start = log.constants.logEventTypes.URL_REQUEST_START_JOB;
  return log.events
    .filter((e) => e.type === start && typeof e.params?.url === 'string')
    .map((e) => ({
      url: text(e.params?.url),
      initiator: text(e.params?.initiator),
      isolationKey: text(e.params?.network_isolation_key),
    }));
}

/** Method and path of every operation block swagger-ui rendered, with the id it gave the block. */
function renderedOperations(dom: string): Array<{ method: string; path: string; id: string }> {
  return dom
    .split(/<div class="opblock[ "]/)
    .slice(1)
    .map((block) => ({
      method: /class="opblock-summary-method">([A-Z]+)</.exec(block)?.[1] ?? '',
      path: /data-path="([^"]*)"/.exec(block)?.[1] ?? '',
      id: /id="operations-([^"]*)"/.exec(block)?.[1] ?? '',
    }));
}

describe.runIf(fs.existsSync(CHROMIUM))('GET /docs in a browser', () => {
  // With a query too: the page's files and its document are found from the address it ends at.
  it.each(['/docs', '/docs?x=1'])(
    '%s shows every operation of the document, with nothing fetched from another host',
    async (address) => {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = t.app.server.address() as { port: number };
      const origin = `http://127.0.0.1:${port}`;
      const doc = (await client(t.app).get('/openapi.json')).json<Parameters<typeof operationsOf>[0]>();
      const expected = operationsOf(doc);

      const run = await renderInChromium(`${origin}${address}`);

      // The document's own title, rendered by swagger-ui (not the page's <title>).
      expect(run.dom).toMatch(/<h1 class="title">Quire API</);
      const rendered = renderedOperations(run.dom);
      const shown = new Set(rendered.map((o) => `${o.method} ${o.path}`));
      expect([...shown].sort()).toEqual(expected.map((o) => `${o.method} ${o.path}`).sort());
      for (const op of expected) {
        expect(
          rendered.some((r) => r.id.endsWith(`-${op.operationId}`)),
          op.operationId,
        ).toBe(true);
      }
      // swagger-ui ran under the page's policy without being refused anything and without throwing
      // (Chromium logs both to the console; failed fetches it does not, the net log covers those).
      expect(run.console.filter((line) => /Content Security Policy|Uncaught/.test(line))).toEqual([]);

      // The page's own requests carry its origin; Chromium's background ones (update checks) carry
      // none and were refused by the resolver rules.
      const fromPage = run.requests.filter(
        (r) => r.initiator === origin || r.isolationKey.startsWith('http://127.0.0.1 '),
      );
      expect(fromPage.map((r) => new URL(r.url).pathname)).toEqual(
        expect.arrayContaining(['/docs', '/docs/static/swagger-ui-bundle.js', '/docs/json']),
      );
      expect(fromPage.filter((r) => new URL(r.url).origin !== origin)).toEqual([]);
    },
    BROWSER_KILL_MS + 30_000,
  );

  it(
    "shows an operation's permission and rate limit when it is opened",
    async () => {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = t.app.server.address() as { port: number };
      // A deep link opens the operation, as a reader's click would.
      const run = await renderInChromium(`http://127.0.0.1:${port}/docs#/pages/readPage`);
      const [, opened = ''] = run.dom.split('id="operations-pages-readPage"');
      const extensions = opened.split('<h4>Extensions</h4>')[1] ?? '';
      expect(extensions, 'the opened operation shows its extensions').not.toBe('');
      const text = extensions
        .replace(/<[^>]*>/g, ' ')
        .replace(/&quot;/g, '"')
        .replace(/\s+/g, ' ');
      expect(text).toMatch(/x-permission "?page\.read"?/);
      expect(text).toMatch(/x-rate-limit .*"?limit"?\s*:?\s*600/);
      expect(text).toMatch(/windowSeconds"?\s*:?\s*60\b/);
    },
    BROWSER_KILL_MS + 30_000,
  );
});
