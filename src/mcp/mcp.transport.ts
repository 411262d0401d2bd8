import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequestRelay } from './mcp.relay.ts';

/** What a server of ours is called in the `initialize` answer. */
export const SERVER_INFO = { name: 'quire', version: '1' } as const;

/** The caller a tool call runs for, from the `extra` the SDK gives every tool callback. */
export type CallerOf<C> = (extra: { authInfo?: AuthInfo }) => C;

/** Adds a server's tools to a new McpServer, once: each call finds its caller through `callerOf`. */
export type ToolsOf<C> = (server: McpServer, callerOf: CallerOf<C>) => void;

/** The most a request to an MCP server may send: a page's content (4,000,000 characters) and room. */
export const MCP_BODY_LIMIT = 5 * 1024 * 1024;

/** Idle servers kept for the next requests: as many as requests are answered at once, usually. */
const IDLE_SERVERS = 16;

/**
 * Answers the requests of a stateless Streamable HTTP server (docs/decisions/0034-mcp-servers.md),
 * with answers in JSON rather than a stream, sent back through Fastify's reply so that its hooks (the
 * request log) see them as any other answer. Each request gets a new transport (the SDK's stateless
 * transport serves one request alone, so JSON-RPC ids of two clients never meet) and a server of its
 * own while it is answered: a server with its tools registered, taken from the idle ones or made,
 * whose relay (src/mcp/mcp.relay.ts) is attached to the request's transport, then detached, and
 * the server kept for a later request. So a server answers one request at a time, and it is made,
 * its tools registered and connected once rather than per request. What a tool
 * needs of the caller (a site's view, an API key's gate, the request's log) travels with the
 * request: the transport hands the request's `authInfo` to every call, and the caller is found by
 * that object's identity, never by anything a client sends. A server that answered `initialize`
 * holds that client's capabilities, and one whose request failed may still be running a call: such
 * servers are closed instead of kept.
 */
export class McpAnswerer<C> {
  private readonly validator = new AjvJsonSchemaValidator();
  private readonly idle: KeptServer[] = [];
  private readonly callers = new WeakMap<AuthInfo, C>();

  constructor(private readonly tools: ToolsOf<C>) {}

  private readonly callerOf: CallerOf<C> = (extra) => {
    const caller = extra.authInfo === undefined ? undefined : this.callers.get(extra.authInfo);
    if (caller === undefined) throw new Error('A tool was called without its request.');
    return caller;
  };

  private async server(): Promise<KeptServer> {
    const kept = this.idle.pop();
    if (kept !== undefined) return kept;
    const server = new McpServer(SERVER_INFO, {
      capabilities: { tools: {} },
      jsonSchemaValidator: this.validator,
    });
    this.tools(server, this.callerOf);
    const relay = new RequestRelay();
    await server.connect(relay);
    return { server, relay };
  }

  async answer(
    request: FastifyRequest,
    reply: FastifyReply,
    body: unknown,
    caller: C,
  ): Promise<FastifyReply> {
    const kept = await this.server();
    const authInfo: AuthInfo = { token: '', clientId: '', scopes: [] };
    this.callers.set(authInfo, caller);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    kept.relay.attach(transport);
    let answered = false;
    try {
      const answer = await transport.handleRequest(webRequest(request), { parsedBody: body, authInfo });
      // Every call of the request has been answered: nothing of it is left running in the server.
      answered = true;
      reply.code(answer.status);
      answer.headers.forEach((value, name) => {
        if (name !== 'content-length') reply.header(name, value);
      });
      return await reply.send(answer.body === null ? '' : await answer.text());
    } finally {
      kept.relay.detach();
      await transport.close();
      const clean = answered && kept.server.server.getClientCapabilities() === undefined;
      if (clean && this.idle.length < IDLE_SERVERS) {
        this.idle.push(kept);
      } else {
        await kept.server.close();
      }
    }
  }
}

/** A server with its tools, connected once, through its relay, to the request it answers. */
interface KeptServer {
  server: McpServer;
  relay: RequestRelay;
}

/** The headers the transport reads (content negotiation, protocol version, session, resumption). */
const TRANSPORT_HEADERS = [
  'accept',
  'content-type',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
];

/** The request as the transport reads it: method, address and its headers; the body is given parsed. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(`http://${request.host}${request.url}`, { method: request.method, headers });
}

/**
 * The answer to any method but POST: a stateless server has no stream to open (GET) and no session
 * to end (DELETE), as the SDK's own stateless examples answer.
 */
export function methodNotAllowed(reply: FastifyReply): FastifyReply {
  return reply
    .code(405)
    .header('allow', 'POST')
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }),
    );
}

/** A refusal before any MCP message is read (authentication, rate limit), as a JSON-RPC error. */
export function refusal(
  reply: FastifyReply,
  status: 400 | 401 | 403 | 404 | 413 | 415 | 429 | 503,
  message: string,
  headers: Record<string, string> = {},
): FastifyReply {
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
