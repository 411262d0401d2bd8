import type { Generated } from 'kysely';

// Reader login's row types (site.md §6, migration 0021), part of src/db/schema.ts's Database.

/** A magic link sent: the SHA-256 of its token (hex), never the token. */
export interface ReaderLoginTokensTable {
  id: Generated<number>;
  project_id: number;
  access_id: number;
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created: string;
}

export type ReaderSessionKind = 'link' | 'jwt';

/** A reader's session, which the signed cookie names by id. */
export interface ReaderSessionsTable {
  /** 32 random bytes, base64url */
  id: string;
  project_id: number;
  /** the grant a link session stands on; null for a session of the project's own login (JWT) */
  access_id: number | null;
  email: string;
  kind: ReaderSessionKind;
  /** the JWT key the session was opened with (a digest): a changed key ends such sessions */
  jwt_key_digest: string | null;
  expires_at: string;
  ended_at: string | null;
  created: string;
}

export type MailKind = 'link' | 'invitation';
export type MailStatus = 'pending' | 'sent' | 'dropped' | 'failed';

/**
 * A mail to send: what and to whom, never the link itself (its token is made when the mail is sent,
 * and stored only as a hash).
 */
export interface MailOutboxTable {
  id: Generated<number>;
  project_id: number;
  kind: MailKind;
  email: string;
  /** the absolute root of the site the link leads to */
  site_root: string;
  /** where the reader goes after signing in: a path of the site, or null */
  next_path: string | null;
  status: MailStatus;
  attempts: Generated<number>;
  next_attempt_at: string;
  claimed_until: string | null;
  claim_token: string | null;
  last_error: string | null;
  created: string;
  completed_at: string | null;
}
