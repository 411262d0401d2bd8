import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
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
