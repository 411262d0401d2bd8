import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/**
 * The one connection of a kept server (src/mcp/mcp.transport.ts): it passes the messages of the
 * request being answered, and only of that one, between the request's own transport and the server.
 * So the server is connected once, rather than connected and closed for every request (closing
 * aborts and clears the server's state and builds an error, on every request). A server answers one
 * request at a time: `attach` is refused while a request is attached.
 */
export class RequestRelay implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private current: WebStandardStreamableHTTPServerTransport | null = null;

  start(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.current = null;
    this.onclose?.();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.current === null) return Promise.reject(new Error('No request is being answered.'));
    return this.current.send(message, options);
  }

  /** The request's transport, until `detach`: its messages go to the server, the server's to it. */
  attach(transport: WebStandardStreamableHTTPServerTransport): void {
    if (this.current !== null) throw new Error('A server answers one request at a time.');
    this.current = transport;
    transport.onmessage = (message, extra) => this.onmessage?.(message, extra);
    transport.onerror = (error) => this.onerror?.(error);
  }

  detach(): void {
    this.current = null;
  }
}
