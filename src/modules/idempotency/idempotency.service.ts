import { randomUUID } from 'node:crypto';
import type { ControlledTransaction, Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DialectName } from '../../db/dialect.ts';
import type { Database } from '../../db/schema.ts';
import { UniqueViolationError, UnprocessableEntityError } from '../../errors.ts';
import { toStoredDate } from '../../shared/dates.ts';
import type { Claim, IdempotencyStore, IdempotentRun, StoredAnswer } from '../../shared/idempotency-store.ts';
import { idempotencyRepository as repo, type IdempotencyRow } from './idempotency.repository.ts';
import {
  KEY_SAVEPOINT,
  KeyedRun,
  SEALED,
  stillRunning,
  type AnswerSealer,
  type KeyOfRun,
} from './idempotency.run.ts';

/** How long a key and its answer are kept (extensions §2). */
export const KEEP_MS = 24 * 60 * 60 * 1000;
/** A claim left without an answer by a request whose end could not be told (see `abandoned`). */
const ABANDONED_MS = 5 * 60 * 1000;
export type { AnswerSealer };

/**
 * Idempotency-Key (extensions §2), kept in the database so that it holds across instances and
 * restarts. The request runs in a transaction of its own, which every use case it calls joins, and
 * its answer is written in that transaction: the change and the key's answer commit together, or
 * neither does (decision 0021). No crash, stall or timeout between them can leave a change done with
 * its key free, so a retry replays the answer or runs a change that never happened.
 *
 * Telling a request still running (409) from one that died: on PostgreSQL the request's transaction
 * holds the key's advisory lock, which a dead process's session loses; on SQLite a claim row, written
 * before the transaction with its holder's process, which a retry finds dead or alive.
 */
export class IdempotencyService implements IdempotencyStore {
  /** this instance's requests running now, by key */
  private readonly running = new Set<string>();
  private readonly instance = randomUUID();
  private readonly holder = `${process.pid}:${this.instance}`;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
    private readonly clock: Clock,
    private readonly sealer: AnswerSealer,
  ) {
    LIVE_INSTANCES.add(this.instance);
  }

  begin(apiKeyId: number, key: string, fingerprint: string): Promise<Claim> {
    return this.dialect === 'postgres'
      ? this.beginLocked(apiKeyId, key, fingerprint)
      : this.beginClaimed(apiKeyId, key, fingerprint);
  }

  /** Forgets keys older than a day; run on start and every hour. */
  purge(): Promise<number> {
    return repo.purge(this.db, toStoredDate(this.clock.now() - KEEP_MS));
  }

  private async beginLocked(apiKeyId: number, key: string, fingerprint: string): Promise<Claim> {
    const trx = await this.db.startTransaction().execute();
    try {
      if (!(await repo.tryLock(trx, apiKeyId, key))) throw stillRunning();
      const held = await repo.find(trx, apiKeyId, key);
      const answer = held === undefined ? null : this.keptAnswer(held, fingerprint);
      if (answer !== null) {
        await trx.rollback().execute();
        return { kind: 'replay', answer };
      }
      // Expired, or a claim an earlier build left: nobody holds the lock, so nobody runs it.
      if (held !== undefined) await repo.release(trx, held.id);
      // A refusal goes back to here, and is kept under the lock.
      await repo.savepoint(trx, KEY_SAVEPOINT);
      const kept = { api_key_id: apiKeyId, idempotency_key: key, fingerprint };
      return { kind: 'run', run: this.run(trx, kept, null) };
    } catch (error) {
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      throw error;
    }
  }

  private async beginClaimed(apiKeyId: number, key: string, fingerprint: string): Promise<Claim> {
    const name = `${apiKeyId} ${key}`;
    if (this.running.has(name)) throw stillRunning();
    this.running.add(name);
    let id: number | undefined;
    try {
      const claim = await this.claim(apiKeyId, key, fingerprint);
      if (claim.kind === 'replay') {
        this.running.delete(name);
        return claim;
      }
      id = claim.id;
      const kept = { api_key_id: apiKeyId, idempotency_key: key, fingerprint };
      return { kind: 'run', run: this.run(undefined, kept, { id, name }) };
    } catch (error) {
      this.running.delete(name);
      if (id !== undefined) await repo.release(this.db, id).catch(() => undefined);
      throw error;
    }
  }

  /** SQLite: claims the key with a row of its own, committed before the request's transaction. */
  private async claim(
    apiKeyId: number,
    key: string,
    fingerprint: string,
  ): Promise<{ kind: 'claimed'; id: number } | { kind: 'replay'; answer: StoredAnswer }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const held = await repo.find(this.db, apiKeyId, key);
      if (held === undefined) {
        try {
          const at = toStoredDate(this.clock.now());
          const row = { api_key_id: apiKeyId, idempotency_key: key, fingerprint, created: at };
          return { kind: 'claimed', id: await repo.claim(this.db, { ...row, holder: this.holder }) };
        } catch (error) {
          if (!(error instanceof UniqueViolationError)) throw error;
          continue;
        }
      }
      const answer = this.keptAnswer(held, fingerprint);
      if (answer !== null) return { kind: 'replay', answer };
      // Only the row as it was seen: its request may have answered since (its commit waited for the
      // file's lock as this delete does), and an answer is never deleted for a retry to run again.
      await repo.releaseIfSeen(this.db, held);
    }
    throw stillRunning();
  }

  /**
   * The answer a row keeps for this request; null when the key is free to run again (expired, or its
   * request died); a 422 for another request's key, a 409 while its request runs.
   */
  private keptAnswer(held: IdempotencyRow, fingerprint: string): StoredAnswer | null {
    const age = this.clock.now() - Date.parse(held.created);
    if (age >= KEEP_MS) return null;
    if (held.completed === null || held.status === null || held.body === null) {
      if (this.abandoned(held, age)) return null;
      if (held.fingerprint !== fingerprint) throw anotherRequest();
      throw stillRunning();
    }
    if (held.fingerprint !== fingerprint) throw anotherRequest();
    return {
      status: held.status,
      contentType: held.content_type,
      etag: held.etag,
      body: held.body.startsWith(SEALED) ? this.sealer.decrypt(held.body.slice(SEALED.length)) : held.body,
    };
  }

  /**
   * Whether a claim without an answer was left by a request that can no longer finish: this
   * instance's own (its requests of that key have all ended, or this one could not have begun), or a
   * process's that is gone. Another live process's, or one of unknown holder, waits out ABANDONED_MS.
   */
  private abandoned(held: IdempotencyRow, age: number): boolean {
    if (age >= ABANDONED_MS) return true;
    if (held.holder === null) return false;
    if (held.holder === this.holder) return true;
    const [pid, instance = ''] = held.holder.split(':');
    // This process: alive if one of its instances holds it, else left by the process that had this
    // pid before (a restarted container's node is pid 1 each time).
    if (Number(pid) === process.pid) return !LIVE_INSTANCES.has(instance);
    return Number.isSafeInteger(Number(pid)) && !processAlive(Number(pid));
  }

  private run(
    trx: ControlledTransaction<Database> | undefined,
    key: KeyOfRun,
    claim: { id: number; name: string } | null,
  ): IdempotentRun {
    return new KeyedRun(this.db, trx, key, claim === null ? null : claim.id, this.clock, this.sealer, () => {
      if (claim !== null) this.running.delete(claim.name);
    });
  }
}

/**
 * The instances of this service in this process (tests build several apps in one process): a claim
 * naming this process's pid and none of these was left by an earlier process with the same pid.
 * Ids only, never removed: an instance closed in this process holds no request any more either way.
 */
const LIVE_INSTANCES = new Set<string>();

const anotherRequest = () =>
  new UnprocessableEntityError(
    'This Idempotency-Key was used with another request (method, path or body): use a new key.',
  );

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
