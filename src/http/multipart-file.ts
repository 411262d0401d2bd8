import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError, BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors.ts';
import { joinInTurns } from './streamed-body.ts';

/**
 * The uploaded file of a route that takes it as multipart/form-data (the field `file`) or as the raw
 * body of a type its own parser accepted; null when none was sent.
 */
export async function readUploadedFile(request: FastifyRequest, tooLarge: string): Promise<Buffer | null> {
  if (request.isMultipart()) return readMultipartFile(request, tooLarge);
  if (Buffer.isBuffer(request.body)) return request.body.length > 0 ? request.body : null;
  // Another type reached the catch-all parser, which drained it.
  const type = request.headers['content-type'];
  if (type !== undefined) throw new UnsupportedMediaTypeError(type, 'multipart/form-data');
  return null;
}

/** The part named `file`, a file or a plain field; every other part is read past and dropped. */
export async function readMultipartFile(request: FastifyRequest, tooLarge: string): Promise<Buffer | null> {
  let file: Buffer | null = null;
  try {
    for await (const part of request.parts()) {
      const wanted = part.fieldname === 'file' && file === null;
      if (part.type === 'file') {
        if (wanted) file = await fileBytes(part.file, tooLarge);
        else part.file.resume();
      } else if (wanted) {
        if (part.valueTruncated) throw new PayloadTooLargeError(tooLarge);
        if (typeof part.value !== 'string') {
          throw new BadRequestError("The multipart field 'file' must hold a file or text.");
        }
        file = Buffer.from(part.value, 'utf8');
      }
    }
  } catch (error) {
    throw multipartError(error, tooLarge);
  }
  return file;
}

/**
 * A file part's bytes, joined a turn of the event loop at a time (the plugin's own `toBuffer` joins
 * an archive of 64 MiB in one).
 */
async function fileBytes(file: MultipartFile['file'], tooLarge: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of file) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  if (file.truncated) throw new PayloadTooLargeError(tooLarge);
  return joinInTurns(chunks, size);
}

function multipartError(error: unknown, tooLarge: string): unknown {
  if (error instanceof AppError) return error;
  const e = error as { code?: unknown; statusCode?: unknown; message?: unknown };
  if (e.code === 'FST_REQ_FILE_TOO_LARGE') return new PayloadTooLargeError(tooLarge);
  // The plugin's own limit errors (413) and prototype-name refusals (400) keep their status.
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return error;
  // busboy reports a malformed body (no boundary, truncated part…) as a plain Error.
  return new BadRequestError(`Malformed multipart/form-data body: ${String(e.message ?? error)}`);
}
