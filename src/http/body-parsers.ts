import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { InvalidFieldError, UnsupportedMediaTypeError } from '../errors.ts';
import { jsonDepthExceeds } from '../shared/nesting.ts';
import { stringPath } from './string-paths.ts';
import './fastify-types.ts';

/**
 * The bodies an operation may send: JSON (UTF-8, nested at most MAX_JSON_DEPTH levels), or for
 * operations without a body anything, ignored.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  // Fastify parses text/plain by default; here every type but JSON goes to the catch-all below.
  app.removeContentTypeParser('text/plain');
  // Only operations that read a JSON body accept one; operations without a body accept an empty
  // body of any type, and ignore the type.
  app.addContentTypeParser('*', (request, payload, done) => {
    const route = request.routeOptions.config;
    if (route.body === 'json') {
      done(new UnsupportedMediaTypeError(request.headers['content-type'] ?? ''), undefined);
      return;
    }
    void payload.resume();
    payload.on('end', () => done(null, undefined));
    payload.on('error', (err) => done(err, undefined));
  });

  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    const bytes = raw as Buffer;
    // JSON is UTF-8 (RFC 8259); decoding anything else would store U+FFFD in place of what was sent.
    if (!isUtf8(bytes)) {
      done(new InvalidFieldError('body', 'is not valid UTF-8'), undefined);
      return;
    }
    const body = bytes.toString('utf8');
    if (body.trim() === '') {
      done(null, undefined);
      return;
    }
    // Before anything walks the value recursively (the NUL check, schema validation), and in a
    // loop of its own: a 10 KB body nested 5,000 levels must cost nothing but this scan.
    if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) {
      done(
        new InvalidFieldError('body', `must not be nested more than ${MAX_JSON_DEPTH} levels deep`),
        undefined,
      );
      return;
    }
    void defaultJson(request, body, (error, value) => {
      // Fastify refuses valid JSON that names __proto__ or constructor.prototype with the same error
      // as broken JSON; plain JSON.parse tells the two apart, on the error path only.
      if (error && parsesAsJson(body)) {
        done(
          new InvalidFieldError('body', "must not use the property names '__proto__' or 'constructor'"),
          undefined,
        );
        return;
      }
      // A `\ud800` escape not paired with a low one (or a low one alone) parses to a lone
      // surrogate, which is no character: the database would store U+FFFD in its place. Only such
      // an escape can make one (the bytes were valid UTF-8), so a body without it is not walked.
      const lone =
        error || !SURROGATE_ESCAPE.test(body) ? null : stringPath(value, 'body', holdsLoneSurrogate);
      if (lone !== null) {
        done(
          new InvalidFieldError(
            lone,
            'must not contain a lone surrogate (a \\ud800–\\udfff escape that is not half of a pair)',
          ),
          undefined,
        );
        return;
      }
      done(error, value);
    });
  });
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** In a `u` regular expression a pair is one code point, so only a lone surrogate is category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;
const holdsLoneSurrogate = (text: string) => LONE_SURROGATE.test(text);

/** Deeper than any body an operation takes (the deepest, reader access, has three levels). */
export const MAX_JSON_DEPTH = 32;

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
