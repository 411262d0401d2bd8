import { decodeProtectedHeader, jwtVerify } from 'jose';
import { isEmail, normaliseEmail } from '../../shared/email.ts';
import type { SecretBox } from '../webhooks/webhook-secrets.ts';
import { openJwtKey } from './reader-jwt-key.ts';

/** Clock skew allowed on `exp`, `nbf` and `iat` (site.md §6). */
const SKEW_SECONDS = 60;
/** The furthest ahead a token's `exp` may be. */
const MAX_AHEAD_SECONDS = 24 * 60 * 60;
/** A longer token is not looked at. */
const MAX_TOKEN_LENGTH = 8_192;

export type TokenCheck = { ok: true; email: string; expiresAt: number } | { ok: false; reason: string };

/**
 * A token from a project's own login: signed with the project's key by exactly the key's algorithm
 * (so `alg: none`, another algorithm, or an RS256 public key used as an HS256 secret are refused),
 * with an `email` and an `exp` no further than 24 hours ahead and not past (60 s of skew).
 */
export async function verifyReaderToken(
  token: string,
  stored: string,
  sealer: () => SecretBox,
  nowMs: number,
): Promise<TokenCheck> {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'no usable token' };
  const key = openJwtKey(stored, sealer);
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    return { ok: false, reason: 'not a JWT' };
  }
  if (alg !== key.alg)
    return { ok: false, reason: `algorithm ${String(alg)} is not this site's (${key.alg})` };
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, key.key, {
      algorithms: [key.alg],
      clockTolerance: SKEW_SECONDS,
      currentDate: new Date(nowMs),
      requiredClaims: ['exp', 'email'],
    }));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_JWT_EXPIRED') return { ok: false, reason: 'token expired' };
    if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') return { ok: false, reason: 'token lacks email or exp' };
    return { ok: false, reason: 'signature or claims refused' };
  }
  const exp = payload.exp;
  if (typeof exp !== 'number' || exp * 1000 > nowMs + (MAX_AHEAD_SECONDS + SKEW_SECONDS) * 1000) {
    return { ok: false, reason: 'exp more than 24 hours ahead' };
  }
  const email = typeof payload.email === 'string' ? normaliseEmail(payload.email) : '';
  if (!isEmail(email)) return { ok: false, reason: 'email is not an address' };
  return { ok: true, email, expiresAt: Math.max(nowMs + SKEW_SECONDS * 1000, exp * 1000) };
}
