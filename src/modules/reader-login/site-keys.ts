import { hkdfSync } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import { ServiceUnavailableError } from '../../errors.ts';
import { loadKey, type KeySource } from '../../shared/key-file.ts';
import { SecretBox } from '../webhooks/webhook-secrets.ts';

export const NO_SITE_KEY =
  'Private sites need SITE_SESSION_SECRET (base64 of 32 bytes, the same on every instance) on ' +
  'PostgreSQL to sign reader sessions: until it is set they answer 503.';

/**
 * The site's server secret and the keys drawn from it (HKDF-SHA256, one per use): one signs reader
 * session cookies, the other seals projects' HS256 login secrets at rest. Resolved at first need.
 */
export class SiteKeys {
  private master: Buffer | null = null;
  private sessionKey: Buffer | null = null;
  private box: SecretBox | null = null;

  constructor(private readonly source: KeySource) {}

  static of(config: Config, database: DatabaseHandle): SiteKeys {
    if (config.siteSessionSecret !== null)
      return new SiteKeys({ kind: 'configured', key: config.siteSessionSecret });
    if (database.sqlite === null) return new SiteKeys({ kind: 'none' });
    if (database.sqlite.memory) return new SiteKeys({ kind: 'process' });
    return new SiteKeys({ kind: 'file', path: `${database.sqlite.name}.site-key` });
  }

  /** Why private sites cannot be served, or null when they can. */
  get missing(): string | null {
    return this.source.kind === 'none' ? NO_SITE_KEY : null;
  }

  /** The HMAC key of session cookies; 503 without a secret on PostgreSQL. */
  session(): Buffer {
    this.sessionKey ??= this.derive('quire reader session');
    return this.sessionKey;
  }

  /** Seals and opens the HS256 secrets of projects' own logins. */
  sealer(): SecretBox {
    this.box ??= new SecretBox({ kind: 'configured', key: this.derive('quire reader jwt secret') });
    return this.box;
  }

  private derive(info: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.resolve(), Buffer.alloc(0), info, 32));
  }

  private resolve(): Buffer {
    this.master ??= this.load();
    return this.master;
  }

  private load(): Buffer {
    return loadKey(this.source, 'site session', () => new ServiceUnavailableError(NO_SITE_KEY, 3600));
  }
}
