import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ServiceUnavailableError } from '../../errors.ts';
import { loadKey, type KeySource } from '../../shared/key-file.ts';

const SECRET_BYTES = 24;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 'v1';

/** Where the key comes from when WEBHOOK_SECRET_KEY is not set (docs/decisions/0014-webhooks.md). */
export type { KeySource } from '../../shared/key-file.ts';

/** A new signing secret: `whsec_` and base64 of 24 random bytes, as Standard Webhooks writes them. */
export function newSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The HMAC key a secret stands for: the bytes after `whsec_`. */
export function secretKeyBytes(secret: string): Buffer {
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

/**
 * Encrypts webhook secrets at rest with AES-256-GCM (a fresh IV each; the tag makes a wrong key an
 * error rather than a wrong secret). Stored as `v1.<iv>.<tag>.<ciphertext>`, base64 each.
 */
export class SecretBox {
  private key: Buffer | null = null;

  constructor(private readonly source: KeySource) {}

  encrypt(plaintext: string): string {
    const key = this.resolveKey();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), sealed]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64')))
      .join('.');
  }

  decrypt(stored: string): string {
    const [format, iv, tag, sealed] = stored.split('.');
    if (format !== FORMAT || iv === undefined || tag === undefined || sealed === undefined) {
      throw new Error('the stored secret is not in a known format');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.resolveKey(), Buffer.from(iv, 'base64'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new Error('the stored secret could not be decrypted (was WEBHOOK_SECRET_KEY changed?)');
    }
  }

  private resolveKey(): Buffer {
    this.key ??= this.load();
    return this.key;
  }

  private load(): Buffer {
    return loadKey(
      this.source,
      'webhook',
      () =>
        new ServiceUnavailableError(
          'Webhooks need WEBHOOK_SECRET_KEY (base64 of 32 bytes) on PostgreSQL, the same on every ' +
            'instance, to encrypt their secrets. Set it and restart.',
          3600,
        ),
    );
  }
}
