import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ProjectSettings } from '../auth/actor.ts';
import type { Deps } from '../deps.ts';
import { siteHostOf } from '../shared/site-host.ts';
import { McpHits } from './mcp.hits.ts';
import { idempotencyKeyOf, KeyGate, keyOf, type KeyRefusal } from './mcp.key-gate.ts';
import { keySource } from './mcp.key-source.ts';
import { registerReaderTools, type ReaderCaller } from './mcp.reader-tools.ts';
import { toolFailure } from './mcp.results.ts';
import { McpAnswerer, MCP_BODY_LIMIT, methodNotAllowed, refusal } from './mcp.transport.ts';
import { registerWriterTools, type WriterCaller } from './mcp.writer-tools.ts';

/** A reference of 8 MiB, escaped as JSON text inside a JSON-RPC message, with room. */
const BODY_LIMIT = Math.max(MCP_BODY_LIMIT, 12 * 1024 * 1024);

const isRefusal = (value: unknown): value is KeyRefusal =>
  typeof value === 'object' && value !== null && 'status' in value && 'message' in value;

/**
 * The writer's MCP server at `/api/v1/mcp` (extensions.md §9, docs/decisions/0034-mcp-servers.md):
 * stateless Streamable HTTP, authenticated by an API key. Not an operation of the pipeline: a
 * request carries tool calls, and each call is admitted as the operation it runs (KeyGate).
 */
export const mcpRoutes: FastifyPluginAsync<{ deps: Deps }> = async (app, { deps }) => {
  const sources = { reader: deps.database.reader, ...deps, hits: new McpHits() };
  const answerer = new McpAnswerer<ReaderCaller & WriterCaller>((server, callerOf) => {
    registerReaderTools(server, callerOf);
    registerWriterTools(server, sources, callerOf);
  });
  app.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    schema: { hide: true },
    handler: (_request, reply) => methodNotAllowed(reply),
  });
  app.post(
    '/mcp',
    { schema: { hide: true }, bodyLimit: BODY_LIMIT, config: { body: 'json' } },
    async (request, reply) => {
      // A browser's page may not drive an agent's key (as the API refuses cross-origin calls).
      if (request.headers.origin !== undefined) {
        return refusal(
          reply,
          403,
          'Cross-origin requests are not allowed. Call this server from a back-end.',
        );
      }
      const auth = await keyOf(request, deps);
      if (isRefusal(auth)) {
        const headers: Record<string, string> =
          auth.status === 401 ? { 'www-authenticate': 'Bearer realm="quire"' } : {};
        if (auth.retryAfter !== undefined) headers['retry-after'] = String(auth.retryAfter);
        return refusal(reply, auth.status, auth.message, headers);
      }
      const idempotencyKey = idempotencyKeyOf(request);
      if (isRefusal(idempotencyKey)) return refusal(reply, idempotencyKey.status, idempotencyKey.message);
      const gate = new KeyGate(deps, auth, request.ip, idempotencyKey);
      const source = keySource(gate, sources, siteRootOf(request, auth.scope.project));
      reply.header('cache-control', 'no-store');
      return answerer.answer(request, reply, request.body, {
        source,
        gate,
        failed: toolFailure(request.log),
      });
    },
  );
};

/** Where the project's reader site is: its host and base path, else `/sites/{id}` on this host. */
function siteRootOf(request: FastifyRequest, project: ProjectSettings): string {
  const host = siteHostOf(project.host);
  if (host === null) return `${request.protocol}://${request.host}/sites/${project.id}`;
  const protocol = project.host !== null && /^http:\/\//i.test(project.host.trim()) ? 'http' : 'https';
  return `${protocol}://${host}${project.basePath ?? ''}`;
}
