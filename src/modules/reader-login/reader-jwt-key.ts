import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { InvalidFieldError } from '../../errors.ts';
import type { SecretBox } from '../webhooks/webhook-secrets.ts';

/** The algorithms a project's own login may sign readers' tokens with (site.md §6). */
export type JwtAlgorithm = 'HS256' | 'RS256' | 'ES256';

export interface JwtKey {
  alg: JwtAlgorithm;
  /** the HS256 secret's bytes, or the public key */
  key: Uint8Array | KeyObject;
}

const FIELD = 'readerJwtKey';
const MIN_SECRET_BYTES = 32;
const MIN_RSA_BITS = 2048;

/**
 * A key file as the project keeps it: `HS256:` and the secret sealed (decision 0030), or `RS256:` /
 * `ES256:` and the public key in PEM. A file that starts with a PEM header is a public key: RSA for
 * RS256, P-256 EC for ES256, anything else (a private key, a certificate, another curve) refused.
 * Otherwise it is an HS256 secret: the file's bytes as they are, one trailing newline dropped, at
 * least 32 of them.
 */
export function storedJwtKey(file: Buffer, sealer: () => SecretBox): string {
  const text = file.toString('latin1');
  if (/^\s*-----BEGIN /.test(text)) {
    if (!/^\s*-----BEGIN PUBLIC KEY-----/.test(text) && !/^\s*-----BEGIN RSA PUBLIC KEY-----/.test(text)) {
      throw new InvalidFieldError(
        FIELD,
        'must be a public key in PEM (BEGIN PUBLIC KEY), not a private key or a certificate',
      );
    }
    let key: KeyObject;
    try {
      key = createPublicKey(text);
    } catch {
      throw new InvalidFieldError(FIELD, 'is not a readable public key in PEM');
    }
    const alg = algorithmOf(key);
    return `${alg}:${key.export({ type: 'spki', format: 'pem' }).toString()}`;
  }
  const secret = file.length > 0 && file[file.length - 1] === 0x0a ? file.subarray(0, -1) : file;
  if (secret.length < MIN_SECRET_BYTES) {
    throw new InvalidFieldError(
      FIELD,
      `an HS256 secret must be at least ${MIN_SECRET_BYTES} bytes (got ${secret.length})`,
    );
  }
  return `HS256:${sealer().encrypt(secret.toString('base64'))}`;
}

function algorithmOf(key: KeyObject): JwtAlgorithm {
  const details = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'rsa') {
    if ((details?.modulusLength ?? 0) < MIN_RSA_BITS) {
      throw new InvalidFieldError(FIELD, `an RSA key must have at least ${MIN_RSA_BITS} bits`);
    }
    return 'RS256';
  }
  if (key.asymmetricKeyType === 'ec' && details?.namedCurve === 'prime256v1') return 'ES256';
  throw new InvalidFieldError(FIELD, 'must be an RSA key (RS256) or a P-256 EC key (ES256)');
}

/** The key a stored value stands for, ready to verify with. */
export function openJwtKey(stored: string, sealer: () => SecretBox): JwtKey {
  const colon = stored.indexOf(':');
  const alg = stored.slice(0, colon);
  const body = stored.slice(colon + 1);
  switch (alg) {
    case 'HS256':
      return { alg, key: new Uint8Array(Buffer.from(sealer().decrypt(body), 'base64')) };
    case 'RS256':
    case 'ES256':
      return { alg, key: createPublicKey(body) };
    default:
      throw new Error('the stored reader JWT key is not in a known format');
  }
}

/** The algorithm of a stored key, for the project's record; null without one. */
export function jwtAlgorithmOf(stored: string | null): JwtAlgorithm | null {
  if (stored === null) return null;
  const alg = stored.slice(0, stored.indexOf(':'));
  return alg === 'HS256' || alg === 'RS256' || alg === 'ES256' ? alg : null;
}

/** What sessions opened with a key remember of it, and what the audit log shows: a digest. */
export const jwtKeyDigest = (stored: string): string =>
  createHash('sha256').update(stored).digest('hex').slice(0, 32);
