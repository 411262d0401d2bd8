import { hash } from 'node:crypto';

/**
 * A JSON value serialised elsewhere (a worker thread), kept as its UTF-8 bytes: an answer splices
 * them in as they are, so a large rendered page never becomes a string on the event loop.
 */
export class JsonBytes {
  constructor(readonly bytes: Uint8Array) {}

  get length(): number {
    return this.bytes.byteLength;
  }
}

/** A text the engine renders, or its JSON bytes when a worker thread rendered it. */
export type Rendered = string | JsonBytes;

/** The digest render caches key a source by; the same function on every thread. */
export const sourceDigest = (text: string): string => hash('sha1', text, 'base64url');

/** A text held as a string or as its UTF-8 bytes (read as stored, or moved between threads), as a string. */
export const utf8Text = (source: string | Uint8Array): string =>
  typeof source === 'string'
    ? source
    : Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString('utf8');

/** A project's variables (JSON text it keeps); anything but a JSON object means no variables. */
export function parseVariables(text: string): Readonly<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}
