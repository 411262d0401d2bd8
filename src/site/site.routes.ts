import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SiteHandler } from './site.handler.ts';

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
  const sites = await site.readers.sitesOnHost(host);
  const chosen = sites
    .filter((s) => s.basePath === '' || path === s.basePath || path.startsWith(`${s.basePath}/`))
    .sort((a, b) => b.basePath.length - a.basePath.length)[0];
  if (chosen === undefined) return false;
  const below = path.slice(chosen.basePath.length);
  await site.serve(request, reply, {
    projectId: chosen.id,
    root: chosen.basePath,
    path: below === '' ? '/' : below,
  });
  return true;
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
