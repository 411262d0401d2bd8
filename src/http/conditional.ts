import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';

/**
 * Answers 304: no body, no body headers. (No payload at all: a serialised `null` would leave a
 * Content-Length of 4 that Node does not send, and clients that trust the header would wait.)
 */
export function sendNotModified(reply: FastifyReply): FastifyReply {
  reply.code(304).removeHeader('content-type');
  return reply.send();
}

/** The 304 a conditional read may answer, for the route's response schema. */
export const notModifiedResponse = {
  304: Type.Null({ description: 'Not modified: the If-None-Match tag names the current answer (no body)' }),
};
