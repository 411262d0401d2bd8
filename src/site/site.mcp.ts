import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { McpHits } from '../mcp/mcp.hits.ts';
import { registerReaderTools, type ReaderCaller } from '../mcp/mcp.reader-tools.ts';
import { toolFailure } from '../mcp/mcp.results.ts';
import { McpAnswerer, methodNotAllowed, refusal } from '../mcp/mcp.transport.ts';
import { ReaderMachine } from '../modules/readers/readers.machine.ts';
import { sendSiteAnswer } from './site.answer.ts';
import { describe } from './site.content.ts';
import { absolute, type SiteContext } from './site.context.ts';
import type { SiteHandler, SiteRequest } from './site.handler.ts';
import { htmlDocument } from './site.html.ts';
import { siteMcpSource, type SiteMcpDeps } from './site.mcp-source.ts';
import { McpConnectDocument } from './templates/mcp-connect.tsx';

/** Requests per client address and window, before RATE_LIMIT_SCALE: an agent at work fits. */
const MCP_LIMIT = 120;
const MCP_WINDOW_MS = 60_000;
/** A reader's tool call is small: a query, a path. */
const MAX_BODY_BYTES = 64 * 1024;
const SITES_MCP = /^\/sites\/(\d{1,10})(\/mcp(?:\/connect)?)\/?$/;
const HOST_MCP = /\/mcp(?:\/connect)?\/?$/;

/**
 * The reader MCP server of every site (extensions.md §9, docs/decisions/0034-mcp-servers.md) at
 * `{site}/mcp`, and `{site}/mcp/connect`, the page that tells a reader how to connect a client (with a
 * private site's reader token). Answered before the site's own hook, which takes every other address
 * of a site; `mcp` is a name the site keeps, so no version slug can take it.
 */
export function registerSiteMcp(app: FastifyInstance, site: SiteHandler, deps: Deps): void {
  const limit = Math.max(1, Math.floor(MCP_LIMIT * deps.config.rateLimitScale));
  const answerer = new McpAnswerer<ReaderCaller>(registerReaderTools);
  const sources: SiteMcpDeps = {
    pages: deps.pages,
    search: deps.search,
    references: deps.references,
    machine: new ReaderMachine(deps.database.reader, describe),
    hits: new McpHits(),
  };

  const serve = async (request: FastifyRequest, reply: FastifyReply, at: SiteRequest) => {
    const context = await site.siteFor(request, at);
    if (context === null) return refusal(reply, 404, 'No documentation site is at this address.');
    if (at.path.startsWith('/mcp/connect')) return connectPage(site, context, request, reply);
    if (request.method !== 'POST') return methodNotAllowed(reply);
    const wait = await overLimit(deps, request, limit);
    if (wait !== null) {
      return refusal(reply, 429, `Too many requests from this address. Try again in ${wait} seconds.`, {
        'retry-after': String(wait),
      });
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, request.host)) {
      return refusal(reply, 403, 'Cross-origin requests are not allowed.');
    }
    const refused = await admission(site, context, request);
    if (refused !== null) {
      // A header holds printable ASCII alone: a project's name may hold anything else.
      const realm = context.view.project.name.replace(/[^\x20-\x7e]|["\\]/g, '');
      const headers: Record<string, string> =
        refused.status === 401
          ? { 'www-authenticate': `Bearer realm="${realm}"` }
          : { 'retry-after': '3600' };
      return refusal(reply, refused.status, refused.message, headers);
    }
    const body = await readJson(request);
    if (body === 413) return refusal(reply, 413, `The request is larger than ${MAX_BODY_BYTES} bytes.`);
    if (body === 400) return refusal(reply, 400, 'The request body is not JSON.');
    const source = siteMcpSource(site, context, sources);
    reply.header('cache-control', 'no-store');
    return answerer.answer(request, reply, body.json, { source, failed: toolFailure(request.log) });
  };

  app.addHook('onRequest', (request, reply, done) => {
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    if (!HOST_MCP.test(path)) {
      done();
      return;
    }
    void mcpAddress(site, request, path).then((at) => {
      if (at === null) {
        done();
        return;
      }
      return serve(request, reply, at).catch((error: unknown) => {
        request.log.warn({ err: error }, 'the MCP server could not answer');
        if (!reply.sent) void refusal(reply, 503, 'The server could not answer. Try again in a moment.');
      });
    }, done);
  });
}

/** The site a request of `…/mcp` or `…/mcp/connect` names, or null when it is no site's. */
async function mcpAddress(
  site: SiteHandler,
  request: FastifyRequest,
  path: string,
): Promise<SiteRequest | null> {
  const sites = SITES_MCP.exec(path);
  if (sites) return { projectId: Number(sites[1]), root: `/sites/${sites[1] ?? ''}`, path: sites[2] ?? '' };
  const host = request.headers.host;
  const at = HOST_MCP.exec(path);
  if (host === undefined || !at || path.startsWith('/sites/') || path.startsWith('/api/')) return null;
  const basePath = path.slice(0, at.index);
  const chosen = (await site.readers.sitesOnHost(host)).find((s) => s.basePath === basePath);
  return chosen === undefined ? null : { projectId: chosen.id, root: basePath, path: at[0] };
}

/** Why the request may not use a private site's server, or null when it may. */
async function admission(
  site: SiteHandler,
  context: SiteContext,
  request: FastifyRequest,
): Promise<{ status: 401 | 503; message: string } | null> {
  if (context.view.project.access !== 'invite') return null;
  const wall = site.wall;
  if (wall === null || !wall.ready) {
    return { status: 503, message: 'This private site cannot sign readers in yet.' };
  }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer !== undefined ? await wall.admitsBearer(context, bearer) : await wall.admits(context, request)) {
    return null;
  }
  return {
    status: 401,
    message: `This documentation is private. Sign in at ${absolute(context, '/mcp/connect')} for a token, and send it as Authorization: Bearer.`,
  };
}

/** `{site}/mcp/connect`: behind a private site's login, with the reader's token; never cached. */
async function connectPage(
  site: SiteHandler,
  context: SiteContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return methodNotAllowed(reply);
  let token: string | null = null;
  if (context.view.project.access === 'invite') {
    token = (await site.wall?.mcpToken(context, request)) ?? null;
    if (token === null) {
      const location = `${context.root}/login?next=${encodeURIComponent('/mcp/connect')}`;
      return reply.code(302).header('location', location).header('cache-control', 'no-store').send();
    }
  }
  const body = htmlDocument(
    McpConnectDocument({ site: context, endpoint: absolute(context, '/mcp'), token }),
  );
  return sendSiteAnswer(
    request,
    reply,
    { status: 200, type: 'text/html; charset=utf-8', body, headers: { 'referrer-policy': 'no-referrer' } },
    'private, no-store',
  );
}

/** Seconds to wait once the client address has used its window's requests, else null. */
async function overLimit(deps: Deps, request: FastifyRequest, limit: number): Promise<number | null> {
  const now = deps.clock.now();
  const counted = await deps.counters.increment(`site-mcp:${request.ip}`, MCP_WINDOW_MS, now);
  if (counted.count <= limit) return null;
  return Math.max(1, Math.ceil((counted.resetAt - now) / 1000));
}

const sameOrigin = (origin: string, host: string): boolean => {
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
};

/**
 * The JSON body, or the status that refuses it: 413 too large, 400 not JSON. Read by its events (a
 * call is one chunk, usually): cheaper than iterating the stream.
 */
function readJson(request: FastifyRequest): Promise<{ json: unknown } | 400 | 413> {
  if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return Promise.resolve(413);
  const raw = request.raw;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      raw.off('data', onData).off('end', onEnd).off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size <= MAX_BODY_BYTES) return;
      done();
      // The rest is read and let go, so that the refusal reaches the client.
      raw.resume();
      resolve(413);
    };
    const onEnd = () => {
      done();
      try {
        const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
        resolve({ json: JSON.parse(text) as unknown });
      } catch {
        resolve(400);
      }
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    raw.on('data', onData).on('end', onEnd).on('error', onError);
  });
}
