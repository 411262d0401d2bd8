import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export const DOCS_PREFIX = '/docs';

/**
 * The policy of /docs and its assets only; API responses are JSON and carry none. Everything comes
 * from Quire itself: the page, swagger-ui-dist's scripts and styles, and the document it fetches.
 * - No 'unsafe-inline' nor 'unsafe-eval': swagger-ui needs neither. Its React components set their
 *   `style` props through the CSSOM, which CSP does not govern, and it injects no <style> element
 *   and evaluates no string (test/docs.test.ts renders it in Chromium and finds no violation).
 * - `img-src data:`: swagger-ui's stylesheet draws its icons as data: SVG images.
 * - `connect-src 'self'`: the page fetches the document from us, and cannot be pointed elsewhere.
 * - No plugins, no framing, no <base> or form target elsewhere.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `${DOCS_PREFIX}/`;
const PAGE_ROUTES = new Set([DOCS_PREFIX, PAGE]);
const INDEX_FILE = `${DOCS_PREFIX}/static/index.html`;

/**
 * Where a request for the page goes instead, or null to serve it. The plugin computes the page's
 * relative addresses from the URL with its query (`/docs/?x=1` does not end with a slash to it, so
 * its files were looked for under /docs/docs/static/), its page script resolves the document against
 * `location.href` with the query (`/docs?x=1/./json`, the page itself), and its redirect from
 * static/index.html matched the end of the URL, query included, so it sent the URL back to itself.
 * The page reads nothing from a query (deep links are fragments, which a redirect keeps), so an
 * address of the page with a query is sent to the same path without it, and static/index.html
 * straight to the page. Relative targets, so that a proxy serving Quire under a sub-path keeps it.
 */
function pageRedirect(request: FastifyRequest): string | null {
  const route = request.routeOptions.url;
  const [path = '', query] = splitQuery(request.url);
  if (route === INDEX_FILE) return relativePath(path, PAGE);
  if (route !== undefined && PAGE_ROUTES.has(route) && query !== undefined) return relativePath(path, path);
  return null;
}

function splitQuery(url: string): [string, string | undefined] {
  const mark = url.indexOf('?');
  return mark < 0 ? [url, undefined] : [url.slice(0, mark), url.slice(mark + 1)];
}

/** `to` (an absolute path) as a reference relative to a document at `from`. */
function relativePath(from: string, to: string): string {
  const fromDirs = from.split('/').slice(1, -1);
  const toParts = to.split('/').slice(1);
  let shared = 0;
  while (shared < fromDirs.length && shared < toParts.length - 1 && fromDirs[shared] === toParts[shared]) {
    shared += 1;
  }
  const up = '../'.repeat(fromDirs.length - shared);
  const down = toParts.slice(shared).join('/');
  // An empty reference would name the document itself, query included; './' names its directory.
  return up + down || './';
}

/**
 * GET /docs: a browsable reference of the API, served from Quire itself by @fastify/swagger-ui
 * (swagger-ui-dist's files, no CDN) and rendered from the document @fastify/swagger generates, the
 * object /api/v1/openapi.json serves (the page reads it from the plugin's /docs/json). Its routes
 * declare no operation, so the pipeline asks no key and counts no rate limit, and the plugin marks
 * them hidden, so the OpenAPI document does not list them.
 */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  // An encapsulated context: the headers below reach the plugin's routes, static files included,
  // and nothing else.
  await app.register(async (docs) => {
    docs.addHook('onSend', (_request, reply, payload, done) => {
      reply
        .header('content-security-policy', DOCS_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer');
      done(null, payload);
    });
    docs.addHook('onRequest', (request, reply, done) => {
      const target = pageRedirect(request);
      if (target === null) done();
      else void reply.redirect(target, 302);
    });
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      // The page at /docs (no slash) names its files ./docs/static/…, not /docs/static/…: relative,
      // they load behind a proxy that serves Quire under a sub-path. (At /docs/ they are ./static/….)
      indexPrefix: '.',
      theme: { title: 'Quire API reference' },
      // swagger-ui's own badge would send the document to an outside validator.
      validatorUrl: false,
      uiConfig: {
        // No top bar: its box loads any address typed in, and this page shows one document.
        layout: 'BaseLayout',
        deepLinking: true,
        // Shows each operation's x-permission and x-rate-limit (and each schema's x- fields).
        showExtensions: true,
        // A reference, not a client: a browser sends an Origin header with every write, which the
        // API refuses for operations that are not cross-origin (they are called from back-ends),
        // so "Try it out" would fail on most operations and invite pasting keys into a page.
        supportedSubmitMethods: [],
      },
    });
  });
}
