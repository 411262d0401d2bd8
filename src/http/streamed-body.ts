import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { BadRequestError, PayloadTooLargeError } from '../errors.ts';
import { TurnBudget } from '../shared/turns.ts';

const LENGTH_MISMATCH = 'Request body length does not match Content-Length.';

/**
 * A raw body of up to `limit` bytes, read whole into one buffer without ever copying it in one
 * piece: a body of 64 MiB joined in one turn held every other request for a few hundred
 * milliseconds (decision 0020). With a Content-Length, a body over the limit is refused before any
 * of it is read, and the chunks are copied into a buffer of that size as they arrive; one that
 * sends more or fewer bytes than it declared is refused (400). A body without one (chunked) is
 * refused as soon as it passes the limit, and its chunks are joined at its end, a turn of the event
 * loop at a time.
 */
export async function readStreamedBody(
  request: FastifyRequest,
  payload: Readable,
  limit: number,
  tooLarge: string,
): Promise<Buffer> {
  const declared = declaredLength(request.headers['content-length']);
  if (declared !== null && declared > limit) throw new PayloadTooLargeError(tooLarge);
  const into = declared === null ? null : Buffer.allocUnsafeSlow(declared);
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  return new Promise<Buffer>((resolve, reject) => {
    const stop = (error: Error | null, body?: Buffer) => {
      if (settled) return;
      settled = true;
      payload.off('data', onData);
      payload.off('end', onEnd);
      if (error === null) {
        resolve(body ?? Buffer.alloc(0));
        return;
      }
      // What is left of the body is read past and dropped: the answer closes the connection.
      payload.resume();
      reject(error);
    };
    const onData = (data: Buffer | string) => {
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      if (received + chunk.length > (declared ?? limit)) {
        stop(declared === null ? new PayloadTooLargeError(tooLarge) : new BadRequestError(LENGTH_MISMATCH));
        return;
      }
      if (into === null) chunks.push(chunk);
      else chunk.copy(into, received);
      received += chunk.length;
    };
    const onEnd = () => {
      if (into !== null) {
        stop(received === declared ? null : new BadRequestError(LENGTH_MISMATCH), into);
        return;
      }
      joinInTurns(chunks, received).then(
        (body) => stop(null, body),
        (error: unknown) => stop(error instanceof Error ? error : new Error(String(error))),
      );
    };
    // The client went away or broke the stream: nobody may be left to read the answer, but it is a
    // 400. The listener stays once the body is read or refused: an error after that is no one's.
    const onError = (error: Error) =>
      stop(new BadRequestError(`The body could not be read: ${error.message}`));
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  });
}

/** The Content-Length sent, as a number; null without one. */
function declaredLength(header: string | undefined): number | null {
  if (header === undefined) return null;
  if (!/^\d{1,15}$/.test(header.trim()))
    throw new BadRequestError('Content-Length must be a number of bytes.');
  return Number(header.trim());
}

/** Chunks copied into one buffer, the event loop answering others between turns of TURN_MS. */
export async function joinInTurns(chunks: readonly Buffer[], size: number): Promise<Buffer> {
  const body = Buffer.allocUnsafeSlow(size);
  const turns = new TurnBudget();
  let at = 0;
  for (const chunk of chunks) {
    chunk.copy(body, at);
    at += chunk.length;
    await turns.pass();
  }
  return body;
}
