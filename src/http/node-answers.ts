import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { errorBody } from './error-handler.ts';

/**
 * Node's own answer to a request it cannot parse (headers too large, a malformed request line), in
 * the error envelope like every other error. Written straight to the socket: no request exists.
 */
export function clientErrorResponse(error: Error & { code?: string }): string {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return rawErrorResponse(
      431,
      'Request headers are too large (at most 16 KiB, the request line included).',
    );
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return rawErrorResponse(408, 'The request was not received in time.');
  }
  return rawErrorResponse(400, 'Malformed HTTP request.');
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** A whole HTTP/1.1 error response in the envelope, for a socket no Fastify request owns. */
function rawErrorResponse(status: number, message: string): string {
  const body = JSON.stringify(errorBody(status, message));
  return [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${randomUUID()}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * What Node itself would answer with an empty body, or not at all, answered in the envelope: a
 * CONNECT (Node drops the connection), an Expect other than 100-continue (an empty 417), and an
 * HTTP/1.1 request without Host (an empty 400; buildApp's first onRequest hook answers it).
 */
export function registerNodeLevelAnswers(app: FastifyInstance): void {
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    socket.end(rawErrorResponse(404, `Route CONNECT ${request.url ?? ''} not found.`));
  });
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify(
      errorBody(417, `Expectation '${request.headers.expect ?? ''}' is not supported.`),
    );
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': randomUUID(),
      connection: 'close',
    });
    response.end(body);
  });
  // Read by Node on every request (not only at creation): the first onRequest hook answers instead.
  (app.server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
}
