import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/schema.ts';
import { ConflictError, UniqueViolationError, UnprocessableEntityError } from '../../errors.ts';
import { toStoredDate } from '../../shared/dates.ts';
import type { Claim, IdempotencyStore, StoredAnswer } from '../../http/idempotency.ts';
import { idempotencyRepository as repo } from './idempotency.repository.ts';

/** How long a key and its answer are kept (extensions §2). */
export const KEEP_MS = 24 * 60 * 60 * 1000;
/** A claim whose request never completed (its process died) may be taken over after this long. */
const ABANDONED_MS = 5 * 60 * 1000;
/** What marks a kept answer as encrypted: no JSON text starts with a letter `s`. */
const SEALED = 'sealed:';

/** Encrypts answers that hold a secret shown once (the webhook secrets' cipher). */
export interface AnswerSealer {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
}

/**
 * Idempotency-Key (extensions §2), kept in the database so that it holds across instances and
 * restarts. A request claims its key before it runs (the unique constraint decides between two that
 * race); its answer completes the claim and is replayed to a retry; an answer in the 5xx range
 * releases it, so the retry runs again.
 */
export class IdempotencyService implements IdempotencyStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly sealer: AnswerSealer,
  ) {}

  async claim(apiKeyId: number, key: string, fingerprint: string): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.clock.now();
      try {
        return {
          kind: 'claimed',
          id: await repo.claim(this.db, apiKeyId, key, fingerprint, toStoredDate(now)),
        };
      } catch (error) {
        if (!(error instanceof UniqueViolationError)) throw error;
      }
      const held = await repo.find(this.db, apiKeyId, key);
      if (held === undefined) continue;
      const age = now - Date.parse(held.created);
      // Expired, or abandoned by a request that never finished: the key is free again.
      if (age >= KEEP_MS || (held.completed === null && age >= ABANDONED_MS)) {
        await repo.releaseIfCreated(this.db, held.id, held.created);
        continue;
      }
      if (held.fingerprint !== fingerprint) {
        throw new UnprocessableEntityError(
          'This Idempotency-Key was used with another request (method, path or body): use a new key.',
        );
      }
      if (held.completed === null || held.status === null || held.body === null) {
        throw new ConflictError(
          'A request with this Idempotency-Key is still running: retry when it has answered.',
        );
      }
      return {
        kind: 'replay',
        answer: {
          status: held.status,
          contentType: held.content_type,
          etag: held.etag,
          body: held.body.startsWith(SEALED)
            ? this.sealer.decrypt(held.body.slice(SEALED.length))
            : held.body,
        },
      };
    }
    throw new ConflictError(
      'A request with this Idempotency-Key is still running: retry when it has answered.',
    );
  }

  /** Keeps the answer for replays; one that holds a secret (a new webhook's) is kept encrypted. */
  async complete(id: number, answer: StoredAnswer, secret: boolean): Promise<void> {
    await repo.complete(this.db, id, {
      status: answer.status,
      content_type: answer.contentType,
      etag: answer.etag,
      body: secret ? `${SEALED}${this.sealer.encrypt(answer.body)}` : answer.body,
      completed: toStoredDate(this.clock.now()),
    });
  }

  release(id: number): Promise<void> {
    return repo.release(this.db, id);
  }

  /** Forgets keys older than a day; run on start and every hour. */
  purge(): Promise<number> {
    return repo.purge(this.db, toStoredDate(this.clock.now() - KEEP_MS));
  }
}
