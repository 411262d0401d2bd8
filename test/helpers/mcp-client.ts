import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import net from 'node:net';
import { expect } from 'vitest';

/** The app listening on a free port of the loopback: its origin, `http://127.0.0.1:PORT`. */
export async function listening(app: FastifyInstance): Promise<string> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return address.replace('localhost', '127.0.0.1');
}

/** The SDK's own client, connected over Streamable HTTP, sending `headers` with every request. */
export async function mcpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'quire-tests', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Calls a tool; its result, typed. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** A successful call's structured content. */
export async function ok<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await call(client, name, args);
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return result.structuredContent as T;
}

/** A call that must fail as a tool error; its message. */
export async function toolError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError, textOf(result)).toBe(true);
  return textOf(result);
}

/** A `tools/call` sent as a bare JSON-RPC request (no `initialize`: the servers are stateless). */
export interface RawCall {
  url: string;
  headers: Record<string, string>;
  id: number;
  name: string;
  args: Record<string, unknown>;
}

/**
 * Sends the calls at once: a connection each is opened first, then every request is written in the
 * same turn, so the server reads them together and answers them interleaved. Each call's answer:
 * its status, and the JSON-RPC answer's id and result.
 */
export async function burst(
  calls: RawCall[],
): Promise<Array<{ status: number; id: unknown; result: CallToolResult }>> {
  const sockets = await Promise.all(
    calls.map(
      (c) =>
        new Promise<net.Socket>((resolve, reject) => {
          const url = new URL(c.url);
          const socket = net.connect(Number(url.port), url.hostname, () => resolve(socket));
          socket.on('error', reject);
        }),
    ),
  );
  const answers = calls.map((c, i) => {
    const socket = sockets[i] as net.Socket;
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    return new Promise<{ status: number; id: unknown; result: CallToolResult }>((resolve) => {
      socket.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const split = text.indexOf('\r\n\r\n');
        const answer = JSON.parse(text.slice(split + 4)) as { id: unknown; result: CallToolResult };
        resolve({ status: Number(text.slice(9, 12)), id: answer.id, result: answer.result });
      });
    });
  });
  for (const [i, c] of calls.entries()) {
    const url = new URL(c.url);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: c.id,
      method: 'tools/call',
      params: { name: c.name, arguments: c.args },
    });
    const headers = {
      host: url.host,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
      ...c.headers,
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    sockets[i]?.write(`POST ${url.pathname} HTTP/1.1\r\n${head.join('')}\r\n${body}`);
  }
  return Promise.all(answers);
}
