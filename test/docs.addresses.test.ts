import http from 'node:http';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

/** Behind a proxy that serves Quire under /quire: every address must stay under it. */
const PROXIED = 'http://proxy.test/quire';

interface Loaded {
  /** where the browser ends up, as the proxy's address */
  url: URL;
  /** each redirect's status and Location, as sent */
  hops: Array<{ status: number; location: string }>;
  html: string;
}

/** A browser's load of an address: redirects followed, each Location resolved where it was sent. */
async function load(address: string): Promise<Loaded> {
  let url = new URL(`${PROXIED}${address}`);
  const hops: Loaded['hops'] = [];
  for (let i = 0; i < 5; i++) {
    expect(url.pathname.startsWith('/quire/'), url.href).toBe(true);
    // From href: an empty query (`/docs?`) is in it, not in `search`.
    const res = await t.app.inject({ method: 'GET', url: url.href.slice(PROXIED.length) });
    if (res.statusCode !== 301 && res.statusCode !== 302) {
      expect(res.statusCode, url.href).toBe(200);
      return { url, hops, html: res.body };
    }
    const location = String(res.headers.location);
    hops.push({ status: res.statusCode, location });
    url = new URL(location, url);
  }
  throw new Error(`${address} redirects without end: ${JSON.stringify(hops)}`);
}

/**
 * The page script's own resolveUrl, as served, run against a page at `href`: the address it gives
 * swagger-ui for the document.
 */
async function documentAddress(href: string): Promise<URL> {
  const code = (await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })).body;
  const source = /function resolveUrl\(url\) \{[\s\S]*?return anchor\.href\s*\}/.exec(code)?.[0];
  expect(source).toBeDefined();
  const anchor = {
    resolved: '',
    set href(value: string) {
      this.resolved = new URL(value).href;
    },
    get href() {
      return this.resolved;
    },
  };
  const resolveUrl = vm.runInNewContext(`${source ?? ''}; resolveUrl`, {
    window: { location: { href } },
    document: { createElement: () => anchor },
  }) as (url: string) => string;
  return new URL(resolveUrl('./json'));
}

const ADDRESSES: Array<{ address: string; hops: Loaded['hops']; page: string }> = [
  { address: '/docs', hops: [], page: '/quire/docs' },
  { address: '/docs/', hops: [], page: '/quire/docs/' },
  { address: '/docs?x=1', hops: [{ status: 302, location: 'docs' }], page: '/quire/docs' },
  { address: '/docs/?x=1&y=%20', hops: [{ status: 302, location: './' }], page: '/quire/docs/' },
  { address: '/docs/static/index.html', hops: [{ status: 302, location: '../' }], page: '/quire/docs/' },
  {
    address: '/docs/static/index.html?x=1',
    hops: [{ status: 302, location: '../' }],
    page: '/quire/docs/',
  },
];

describe('the addresses of /docs, with and without a query', () => {
  it.each(ADDRESSES)('$address reaches the page, whose files and document resolve', async (expected) => {
    const loaded = await load(expected.address);
    expect(loaded.hops).toEqual(expected.hops);
    expect(loaded.url.href).toBe(`http://proxy.test${expected.page}`);
    expect(loaded.html).toContain('<div id="swagger-ui"></div>');

    const refs = [...loaded.html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(refs.filter((r) => r.endsWith('.js'))).toHaveLength(3);
    for (const ref of refs) {
      const file = new URL(ref, loaded.url);
      expect(file.pathname, ref).toMatch(/^\/quire\/docs\/static\/[\w.-]+$/);
      const res = await t.app.inject({ method: 'GET', url: file.pathname.slice('/quire'.length) });
      expect(res.statusCode, file.pathname).toBe(200);
    }

    const document = await documentAddress(loaded.url.href);
    expect(document.href).toBe(`${PROXIED}/docs/json`);
    const served = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(served.json()).toEqual((await client(t.app).get('/openapi.json')).json());
  });

  it('serves the files and the document whatever their query', async () => {
    for (const url of [
      '/docs/json?x=1',
      '/docs/static/swagger-ui.css?v=2',
      '/docs/static/swagger-initializer.js?x',
    ]) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    }
  });

  it('sends an empty query away too, as a browser keeps it in the address (only a socket sends one)', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    for (const [path, location] of [
      ['/docs?', 'docs'],
      ['/docs/?', './'],
    ]) {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path }, resolve).on('error', reject);
      });
      res.resume();
      expect([path, res.statusCode, res.headers.location]).toEqual([path, 302, location]);
    }
  });
});
