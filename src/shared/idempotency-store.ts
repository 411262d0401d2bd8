import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

/*
 * What the Idempotency-Key hooks (src/http/idempotency.ts) ask of the store that keeps keys and their
 * answers (src/modules/idempotency/): declared here, below both, so that neither imports the other.
 */

/** An answer kept for replay. */
export interface StoredAnswer {
  status: number;
  contentType: string | null;
  etag: string | null;
  body: string;
}

/** A request that runs under its key: in a transaction of its own, which its answer ends. */
export interface IdempotentRun {
  /** the transaction every use case of the request joins, once open */
  readonly transaction: Transaction<Database> | undefined;
  /** Opens it (at the request's first write: on SQLite it holds the one writer from then on). */
  open(): Promise<Transaction<Database>>;
  /**
   * Ends the request with its answer: below 400 kept in the transaction, which then commits; a
   * refusal undone and kept on its own; 5xx undone and not kept; null (a stream) committed, not kept.
   * `secret`: the answer holds a secret shown once, so it is kept encrypted.
   */
  finish(answer: StoredAnswer | null, secret: boolean): Promise<void>;
  /** The request ended without an answer: its change is undone and its key freed. */
  abandon(): Promise<void>;
}

export type Claim = { kind: 'run'; run: IdempotentRun } | { kind: 'replay'; answer: StoredAnswer };

/** Where keys and their answers live (the database, through IdempotencyService). */
export interface IdempotencyStore {
  begin(apiKeyId: number, key: string, fingerprint: string): Promise<Claim>;
}
