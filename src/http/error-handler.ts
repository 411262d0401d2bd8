import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asUnavailable } from '../db/unavailable.ts';
import {
  AppError,
  PreconditionFailedError,
  ServiceUnavailableError,
  TooManyRequestsError,
  type FieldProblem,
} from '../errors.ts';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** The error envelope: `{"error":{"message","httpCode","code"[,"details"]}}`, code = status. */
export function errorBody(status: number, message: string, details?: FieldProblem[]) {
  return { error: { message, httpCode: status, code: status, ...(details?.length ? { details } : {}) } };
}

/** One writer of error bodies for Fastify replies; raw sockets use errorBody (src/app.ts). */
export function sendError(
  reply: FastifyReply,
  status: number,
  message: string,
  details?: FieldProblem[],
): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody(status, message, details));
}

const PART: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

function validationDetails(context: string | undefined, issues: ValidationIssue[]): FieldProblem[] {
  const prefix = PART[context ?? 'body'] ?? 'body';
  const problems = issues.map((issue) => {
    const path = (issue.instancePath ?? '').split('/').filter(Boolean);
    let message = issue.message ?? 'is invalid';
    if (issue.keyword === 'required' && typeof issue.params?.missingProperty === 'string') {
      path.push(issue.params.missingProperty);
      message = 'is required';
    } else if (issue.keyword === 'enum' && Array.isArray(issue.params?.allowedValues)) {
      message = `must be one of ${issue.params.allowedValues.map(String).join(', ')}`;
    } else if (
      issue.keyword === 'additionalProperties' &&
      typeof issue.params?.additionalProperty === 'string'
    ) {
      path.push(issue.params.additionalProperty);
      message = 'is not allowed';
    } else if (issue.keyword === 'const') {
      message = `must be ${JSON.stringify(issue.params?.allowedValue)}`;
    }
    return { field: [prefix, ...path].join('.'), message, keyword: issue.keyword };
  });
  return mergeAlternatives(problems);
}

/**
 * A value that matches none of an `anyOf` yields one problem per alternative plus the `anyOf`
 * itself; the client is better served by one line per field: `must be integer or must be "latest"`.
 */
function mergeAlternatives(problems: Array<FieldProblem & { keyword?: string | undefined }>): FieldProblem[] {
  const anyOfFields = new Set(problems.filter((p) => p.keyword === 'anyOf').map((p) => p.field));
  const merged: FieldProblem[] = [];
  for (const field of anyOfFields) {
    const parts = problems.filter((p) => p.field === field && p.keyword !== 'anyOf').map((p) => p.message);
    merged.push({ field, message: [...new Set(parts)].join(' or ') || 'is invalid' });
  }
  for (const p of problems)
    if (!anyOfFields.has(p.field)) merged.push({ field: p.field, message: p.message });
  return merged;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    sendError(reply, 404, `Route ${request.method} ${request.url.split('?')[0]} not found.`);
  });

  app.setErrorHandler((raised: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // The database out of reach, or too slow: 503 with Retry-After; the pool recovers by itself.
    const unavailable = raised instanceof AppError ? null : asUnavailable(raised);
    if (unavailable) request.log.warn({ err: raised }, 'database unavailable');
    const error = (unavailable ?? raised) as FastifyError;
    if (error instanceof AppError) {
      if (error instanceof PreconditionFailedError) reply.header('etag', error.currentTag);
      if (error instanceof TooManyRequestsError || error instanceof ServiceUnavailableError) {
        reply.header('retry-after', String(error.retryAfterSeconds));
      }
      if (error.status >= 500 && !unavailable) request.log.error({ err: error }, 'request failed');
      return sendError(reply, error.status, error.message, error.details);
    }
    if (error.validation) {
      const details = validationDetails(error.validationContext, error.validation);
      const first = details[0];
      const message = first ? `Invalid request: ${first.field} ${first.message}` : 'Invalid request.';
      return sendError(reply, 400, message, details);
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, 400, 'Malformed JSON body.', [
          { field: 'body', message: 'is not valid JSON' },
        ]);
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, 413, 'Request body is too large.');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(
          reply,
          415,
          `Unsupported content-type '${request.headers['content-type'] ?? ''}'. Supported content-type is 'application/json'.`,
        );
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, 400, 'Request body length does not match Content-Length.');
      default:
        break;
    }
    // Fastify's own client errors (bad URL encoding, bad content length…) keep their 4xx status.
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, error.statusCode, error.message);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 500, 'Internal server error. The request id identifies it in the logs.');
  });
}
