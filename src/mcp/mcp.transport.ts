import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** What a server of ours is called in the `initialize` answer. */
export const SERVER_INFO = { name: 'quire', version: '1' } as const;

/** Adds a server's tools to a new McpServer, for one request. */
export type ToolsOf = (server: McpServer) => void;

/** The most a request to an MCP server may send: a page's content (4,000,000 characters) and room. */
export const MCP_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * Answers the requests of a stateless Streamable HTTP server (docs/decisions/0034-mcp-servers.md): a
 * new McpServer and transport for each request alone, so any instance answers any request, with
 * answers in JSON rather than a stream, sent back through Fastify's reply so that its hooks (the
 * request log) see them as any other answer. The JSON Schema validator a server is made with is
 * made once here: making one (an Ajv instance) cost more than the rest of a search call.
 */
export class McpAnswerer {
  private readonly validator = new AjvJsonSchemaValidator();

  answer(request: FastifyRequest, reply: FastifyReply, body: unknown, tools: ToolsOf): Promise<FastifyReply> {
    return answerMcp(request, reply, body, tools, this.validator);
  }
}

async function answerMcp(
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  tools: ToolsOf,
  validator: AjvJsonSchemaValidator,
): Promise<FastifyReply> {
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} }, jsonSchemaValidator: validator });
  tools(server);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    const answer = await transport.handleRequest(webRequest(request), { parsedBody: body });
    reply.code(answer.status);
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length') reply.header(name, value);
    });
    return await reply.send(answer.body === null ? '' : await answer.text());
  } finally {
    await transport.close();
    await server.close();
  }
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
