import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { Deps } from './deps.ts';
import { documentResponseHeaders } from './http/documented-headers.ts';
import { registerErrorHandling, sendError } from './http/error-handler.ts';
import { drain } from './http/drain.ts';
import { clientErrorResponse, registerNodeLevelAnswers } from './http/node-answers.ts';
import { registerPreflight } from './http/cors.ts';
import { registerPipeline } from './http/pipeline.ts';
import { buildSerializer, compileValidator } from './http/schema-compilers.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { registerCompression } from './http/compression.ts';
import { registerMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerDocs } from './http/docs.ts';
import { buildSite } from './site/site.ts';
import { answerMalformedOnSite, registerSite } from './site/site.routes.ts';
import { registerSiteForms } from './site/site.forms.ts';
import { registerSiteMcp } from './site/site.mcp.ts';
import type { SiteHandler } from './site/site.handler.ts';
import { BatchedLogStream, lazyChildLogger, RequestSummaryLog } from './http/request-log.ts';
import { allRoutes } from './modules/all/all.routes.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { feedbackRoutes } from './modules/feedback/feedback.routes.ts';
import { documentationRoutes } from './modules/documentation/documentation.routes.ts';
import { exportRoutes } from './modules/export/export.routes.ts';
import { importRoutes } from './modules/import/import.routes.ts';
import { changelogsRoutes } from './modules/changelogs/changelogs.routes.ts';
import { linksRoutes } from './modules/links/links.routes.ts';
import { pagesRoutes } from './modules/pages/pages.routes.ts';
import { readerAccessRoutes } from './modules/reader-access/reader-access.routes.ts';
import { referencesRoutes } from './modules/references/references.routes.ts';
import { usersRoutes } from './modules/users/users.routes.ts';
import { searchRoutes } from './modules/search/search.routes.ts';
import { versionsRoutes } from './modules/versions/versions.routes.ts';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.ts';
import { mcpRoutes } from './mcp/mcp.writer.routes.ts';

export const JSON_BODY_LIMIT = 5 * 1024 * 1024;
/**
 * The longest URL (path and query) answered; a longer one is refused with 414. RFC 9112 asks for
 * at least 8,000 octets. Node itself refuses a request line and headers over 16 KiB in all with
 * 431 (clientErrorResponse), so without this a long URL got 431 or nothing, by its length.
 */
export const MAX_URL_LENGTH = 8 * 1024;
const READY_TIMEOUT_MS = 1_500;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface BuildOptions {
  /** pino options, or false for no logs (tests) */
  logger?: boolean | { level: string };
  /**
   * On close, how long the server keeps accepting and keeps idle keep-alive connections open (ms,
   * default 250): a request a client has already sent is still read and answered, with
   * `Connection: close`.
   */
  drainGraceMs?: number;
  /**
   * Called on the bare app, before any hook or route is added: the test suite installs its check of
   * every answer against the route's declared schema (test/helpers/answer-check.ts) here.
   */
  instrument?: (app: FastifyInstance) => void;
}

/** A hop count trusts that many proxies nearest to us; Fastify's types want it as a function. */
function trustProxyOption(
  trust: Config['trustProxy'],
): boolean | string[] | ((addr: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_addr, hop) => hop < trust;
  return typeof trust === 'boolean' ? trust : [...trust];
}

export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<FastifyInstance> {
  // Built below, once the app is; a URL Fastify cannot route may still be a site's.
  let site: SiteHandler | null = null;
  const app = Fastify({
    logger: options.logger ?? { level: deps.config.logLevel, stream: new BatchedLogStream() },
    // One line per request, and a request's child logger only when something is written through it.
    logController: new RequestSummaryLog(),
    childLoggerFactory: lazyChildLogger,
    bodyLimit: JSON_BODY_LIMIT,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    schemaController: { compilersFactory: { buildSerializer } },
    // Draining (see the preClose hook) answers every request that reaches us, with Connection: close.
    return503OnClosing: false,
    // Close hooks run under the bound plugins start under (10 s by default), and the server's own
    // waits for the requests in flight: a drain is bounded by SHUTDOWN_TIMEOUT (src/main.ts) alone.
    pluginTimeout: Math.max(10_000, deps.config.shutdownTimeoutMs + 10_000),
    forceCloseConnections: false,
    clientErrorHandler: (error, socket) => {
      if (socket.writable && !socket.destroyed) {
        socket.end(clientErrorResponse(error));
      } else {
        socket.destroy(error);
      }
    },
    trustProxy: trustProxyOption(deps.config.trustProxy),
    // Errors Fastify raises before routing (a malformed URL) get the same body and request id.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      if (error.code === 'FST_ERR_BAD_URL' && site !== null) {
        const answering = site;
        void answerMalformedOnSite(answering, request, reply).then(
          (answered) => {
            if (!answered) sendError(reply, 400, 'Malformed URL.');
          },
          () => sendError(reply, 400, 'Malformed URL.'),
        );
        return;
      }
      const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 400;
      sendError(reply, status, error.code === 'FST_ERR_BAD_URL' ? 'Malformed URL.' : error.message);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(compileValidator);
  options.instrument?.(app);
  registerNodeLevelAnswers(app);
  // Draining: every request that reaches us is answered, with Connection: close so that its client
  // goes, and /readyz says 503; after a grace the server stops listening and closes idle
  // connections. Close goes on once no connection is left.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    if (app.server.listening) await drain(app.server, options.drainGraceMs ?? 250);
  });
  // Callback-style hooks: on the hot read path a promise per hook per request is measurable.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      reply.header('connection', 'close');
      sendError(reply, 400, 'An HTTP/1.1 request must have a Host header.');
      return;
    }
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  registerErrorHandling(app);
  // Before every route, the site's included; an Idempotency-Key keeps its answer before this
  // compresses it (see registerIdempotency).
  await registerCompression(app);
  // Before the API's hooks: a project's host serves its site on every path but Quire's own.
  site = buildSite(deps);
  // The forms of every site (feedback) first: the site's own hook answers any other POST to a site.
  registerSiteForms(app, site, deps);
  registerSiteMcp(app, site, deps);
  registerSite(app, site);
  // After the site's hook, and never for /sites/: a reader's site answers a long URL with a page of its
  // own (its search refuses a long query by name), never with the API's envelope.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.url.length > MAX_URL_LENGTH && !request.url.startsWith('/sites/')) {
      sendError(reply, 414, `The URL is too long: at most ${MAX_URL_LENGTH} characters, query included.`);
      return;
    }
    done();
  });
  registerPipeline(app, deps);
  registerIdempotency(app, deps.idempotency);

  await registerOpenApi(app);
  registerMetrics(app, deps);

  const crossOriginPaths = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (route.config?.crossOrigin === true) crossOriginPaths.add(route.url);
    documentResponseHeaders(route);
  });

  await app.register(
    async (api) => {
      await api.register(versionsRoutes, { versions: deps.versions });
      await api.register(documentationRoutes, { documentation: deps.documentation });
      await api.register(referencesRoutes, { references: deps.references });
      await api.register(pagesRoutes, { pages: deps.pages });
      await api.register(usersRoutes, { users: deps.users });
      await api.register(readerAccessRoutes, { readerAccess: deps.readerAccess });
      await api.register(allRoutes, { all: deps.all });
      await api.register(searchRoutes, { search: deps.search });
      await api.register(auditRoutes, { audit: deps.auditLog });
      await api.register(exportRoutes, { exports: deps.exports });
      await api.register(importRoutes, { imports: deps.imports });
      await api.register(changelogsRoutes, { changelogs: deps.changelogs });
      await api.register(linksRoutes, { links: deps.links });
      await api.register(webhooksRoutes, { webhooks: deps.webhooks });
      await api.register(feedbackRoutes, { feedback: deps.feedback });
      await api.register(mcpRoutes, { deps });
      api.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
    },
    { prefix: '/api/v1' },
  );
  registerPreflight(app, deps.config, crossOriginPaths);

  await registerDocs(app);
  app.get('/healthz', { schema: { hide: true } }, () => ({ status: 'ok' }));
  // Bounded whatever the database does: a hung database is "not ready" after READY_TIMEOUT_MS.
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    if (closing) return reply.code(503).send({ status: 'draining' });
    if (await deps.database.ping(READY_TIMEOUT_MS)) return { status: 'ready' };
    return reply.code(503).header('retry-after', '2').send({ status: 'unavailable' });
  });
  deps.database.onConnectionError((error) => {
    app.log.warn({ err: error }, 'a database connection failed; the pool replaces it');
  });

  await app.ready();
  return app;
}
