import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Answers smaller than this go as they are: compressing them saves less than it costs. */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * JSON (application/json and +json types) and HTML only. A ZIP export is compressed already, a
 * YAML definition goes byte for byte, and an event stream must reach its reader as each event is
 * written, so none of them is touched.
 */
export const COMPRESSIBLE = /^(?:application\/(?:[\w.-]+\+)?json|text\/html)\s*(?:;|$)/i;

/**
 * Response compression (gzip or brotli, as the client's Accept-Encoding asks) for every route added
 * after this, the reader site's and /docs included. Its hook is each route's own onSend; the
 * idempotency hook puts itself before it, so an answer is kept for an Idempotency-Key uncompressed
 * and compressed as it leaves, a replay too. Request bodies are not decompressed: their limits count
 * the bytes received.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    threshold: COMPRESSION_THRESHOLD,
    encodings: ['br', 'gzip'],
    customTypes: COMPRESSIBLE,
    globalDecompression: false,
  });
}
