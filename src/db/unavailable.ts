import { ServiceUnavailableError } from '../errors.ts';

/** Seconds a client is asked to wait before trying again while the database cannot answer. */
export const RETRY_AFTER_SECONDS = 2;

/** Node's socket errors that mean the database server is out of reach. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * PostgreSQL SQLSTATEs that say the server, not the request, is the problem: connection exceptions
 * (class 08), administrator or crash shutdown and start-up (57P01–57P03), too many connections
 * (53300), and a statement cancelled by statement_timeout (57014).
 */
const SERVER_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

/** node-postgres's own messages for a connection that broke, never opened, or stopped answering. */
const CLIENT_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
];

/**
 * A database error that means "not now" rather than "not so", as a 503 with Retry-After; null for
 * every other error. SQLite's SQLITE_BUSY (another process held the write lock past busy_timeout,
 * or committed between a transaction's read and its write) counts too.
 */
export function asUnavailable(error: unknown): ServiceUnavailableError | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (code === '57014') {
      return new ServiceUnavailableError(
        'The database did not answer in time. Try again later.',
        RETRY_AFTER_SECONDS,
      );
    }
    if (NETWORK_CODES.has(code) || SERVER_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) {
      return unavailable();
    }
    // With their extended codes: SQLITE_BUSY_SNAPSHOT is a transaction that read before another
    // connection's commit and then wrote, which a retry does anew.
    if (/^SQLITE_(BUSY|LOCKED)(_[A-Z]+)?$/.test(code)) return unavailable();
  }
  if (typeof message === 'string' && CLIENT_MESSAGES.some((m) => message.includes(m))) return unavailable();
  // A connection attempt to every address of a host name fails as one AggregateError.
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => asUnavailable(e) !== null)) {
    return unavailable();
  }
  return null;
}

/** PostgreSQL cancelled a statement: past the statement timeout (57014). */
export function isStatementTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '57014';
}

function unavailable(): ServiceUnavailableError {
  return new ServiceUnavailableError('The database is unavailable. Try again later.', RETRY_AFTER_SECONDS);
}
