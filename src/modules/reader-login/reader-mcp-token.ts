import { createHmac, timingSafeEqual } from 'node:crypto';
import { sessionIdOf, signedSession } from './reader-session-cookie.ts';

/** What starts a reader's bearer token for the site's MCP server, so that it is told from a key. */
const PREFIX = 'qrt_';
const TOKEN = /^qrt_([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/;

/**
 * A private site's reader session as a bearer token for its MCP server (docs/decisions/0034): the
 * session id, signed for the MCP server of one project under a purpose of its own, so the token is
 * not the session cookie and the cookie is not a token. It lives as long as the session: the session
 * is checked at every request, so sign-out, expiry and a revoked grant end it too.
 */
export function readerMcpToken(key: Buffer, projectId: number, cookie: string | undefined): string | null {
  const id = sessionIdOf(key, projectId, cookie);
  return id === null ? null : `${PREFIX}${id}.${signature(key, projectId, id)}`;
}

/** The session cookie value a token stands for, or null when it is not one signed for this project. */
export function sessionOfMcpToken(key: Buffer, projectId: number, token: string): string | null {
  const match = TOKEN.exec(token);
  const id = match?.[1];
  if (match === null || id === undefined) return null;
  const given = Buffer.from(match[2] ?? '', 'base64url');
  const expected = Buffer.from(signature(key, projectId, id), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return signedSession(key, projectId, id);
}

const signature = (key: Buffer, projectId: number, id: string): string =>
  createHmac('sha256', key).update(`mcp.${projectId}.${id}`).digest('base64url');
