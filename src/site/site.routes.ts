import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUtf8 } from 'node:buffer';
import type { SiteHandler, SiteRequest } from './site.handler.ts';

/** Paths a project's host leaves to Quire itself (site.md §1). */
const QUIRE_PATHS = ['/api/', '/healthz', '/readyz', '/metrics'];
const SITES = /^\/sites\/(\d{1,10})(\/[^?]*)?(?:\?.*)?$/;

function ownedByQuire(path: string): boolean {
  return QUIRE_PATHS.some((prefix) => path === prefix.replace(/\/$/, '') || path.startsWith(prefix));
}

/** The path of a URL, without its query. */
const pathOf = (url: string): string => {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};

/**
 * The reader site's routes (site.md §1): `/sites/{projectId}/…` on any host, and every path of a
 * project's own host but Quire's (`/api/`, `/healthz`, `/readyz`, `/metrics`), the longest matching
 * base path first. A host is looked up only for a request that is not Quire's own.
 */
export function registerSite(app: FastifyInstance, site: SiteHandler): void {
  const bySitesPath = (request: FastifyRequest, reply: FastifyReply) => {
    const match = SITES.exec(request.url);
    if (!match) return site.serve(request, reply, { projectId: 0, root: '/sites/0', path: '/' });
    const projectId = Number(match[1]);
    return site.serve(request, reply, {
      projectId,
      root: `/sites/${match[1] ?? ''}`,
      path: match[2] ?? '/',
    });
  };
  for (const url of ['/sites/:projectId', '/sites/:projectId/*']) {
    app.route({ method: ['GET', 'HEAD'], url, schema: { hide: true }, handler: bySitesPath });
  }

  app.addHook('onRequest', (request, reply, done) => {
    const host = request.headers.host;
    const path = pathOf(request.url);
    // A form sent to a site (a private one's login and sign-out): read here, before the API's
    // parsers, which take JSON alone.
    if (request.method === 'POST' && host !== undefined && !ownedByQuire(path)) {
      void postToSite(site, request, reply, host, path).then((served) => {
        if (!served) done();
      }, done);
      return;
    }
    if (
      host === undefined ||
      ownedByQuire(path) ||
      path.startsWith('/sites/') ||
      (request.method !== 'GET' && request.method !== 'HEAD')
    ) {
      done();
      return;
    }
    void onProjectHost(site, request, reply, host, path).then((served) => {
      if (!served) done();
    }, done);
  });
}

/**
 * Serves the request from the site of a project on its host, if one's base path matches; false when
 * none does (Quire's own routes answer it). The site answers its own failures.
 */
async function onProjectHost(
  site: SiteHandler,
  request: FastifyRequest,
  reply: FastifyReply,
  host: string,
  path: string,
): Promise<boolean> {
  const at = await siteOnHost(site, host, path);
  if (at === null) return false;
  await site.serve(request, reply, at);
  return true;
}

/** The most a site's form may send: an address and a path to return to. */
const MAX_FORM_BYTES = 8 * 1024;

/**
 * A POST of a site's address: `/sites/{id}/…` on any host, or a path of a project's host; false when
 * it is neither (Quire's own routes answer it).
 */
async function postToSite(
  site: SiteHandler,
  request: FastifyRequest,
  reply: FastifyReply,
  host: string,
  path: string,
): Promise<boolean> {
  const match = SITES.exec(request.url);
  let at: SiteRequest | null = null;
  if (match) {
    at = { projectId: Number(match[1]), root: `/sites/${match[1] ?? ''}`, path: match[2] ?? '/' };
  } else if (!path.startsWith('/sites/')) {
    const chosen = await siteOnHost(site, host, path);
    if (chosen !== null) at = chosen;
  }
  if (at === null) return false;
  await site.servePost(request, reply, at, await readForm(request));
  return true;
}

/** A form body (`application/x-www-form-urlencoded`, UTF-8, at most MAX_FORM_BYTES), or null. */
function readForm(request: FastifyRequest): Promise<URLSearchParams | null> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  const declared = Number(request.headers['content-length'] ?? '0');
  if (type !== 'application/x-www-form-urlencoded' || declared > MAX_FORM_BYTES) {
    request.raw.resume();
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.raw.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_FORM_BYTES) chunks.push(chunk);
    });
    request.raw.on('end', () => {
      const bytes = Buffer.concat(chunks);
      resolve(size > MAX_FORM_BYTES || !isUtf8(bytes) ? null : new URLSearchParams(bytes.toString('utf8')));
    });
    request.raw.on('error', () => resolve(null));
  });
}

/** The site of a project on this host whose base path is the longest to match `path`, or null. */
async function siteOnHost(site: SiteHandler, host: string, path: string): Promise<SiteRequest | null> {
  const sites = await site.readers.sitesOnHost(host);
  const chosen = sites
    .filter((s) => s.basePath === '' || path === s.basePath || path.startsWith(`${s.basePath}/`))
    .sort((a, b) => b.basePath.length - a.basePath.length)[0];
  if (chosen === undefined) return null;
  const below = path.slice(chosen.basePath.length);
  return { projectId: chosen.id, root: chosen.basePath, path: below === '' ? '/' : below };
}

/**
 * A request whose URL Fastify could not route (a percent-encoding that does not decode): when it is
 * a site's, the site answers it (its not-found page); false when it is Quire's own.
 */
export async function answerMalformedOnSite(
  site: SiteHandler,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const match = SITES.exec(request.url);
  if (match) {
    await site.serve(request, reply, {
      projectId: Number(match[1]),
      root: `/sites/${match[1] ?? ''}`,
      path: match[2] ?? '/',
    });
    return true;
  }
  const host = request.headers.host;
  const path = pathOf(request.url);
  if (host === undefined || ownedByQuire(path)) return false;
  return onProjectHost(site, request, reply, host, path);
}
