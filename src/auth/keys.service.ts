import { hash as digest, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { afterCommit } from '../db/after-commit.ts';
import { inTransaction } from '../db/transaction.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { formatApiDate, toStoredDate } from '../shared/dates.ts';
import type { KeyActor, Scope, TransactionContext, UseCaseContext } from './actor.ts';
import { keysRepository as repo, type KeyRow } from './keys.repository.ts';
import { PERMISSIONS, type Permission } from './permissions.ts';

export interface KeyInput {
  name?: string;
  /** 'all' or a list */
  permissions: 'all' | Permission[];
  /** 'all' or version ids */
  versions: 'all' | number[];
  userId?: number | null;
  /** a fixed plaintext (the bootstrap key); otherwise one is generated */
  plaintext?: string;
}

export interface KeyRecord {
  id: number;
  projectId: number;
  name: string;
  prefix: string;
  permissions: string[];
  versions: 'all' | number[];
  userId: number | null;
  created: string;
  revoked: string | null;
}

/** The changes the key use cases make: members of the union of every change (src/modules/changes/). */
export type KeyChange =
  | { type: 'api_key.created'; projectId: number; key: KeyRecord }
  | { type: 'api_key.revoked'; projectId: number; key: KeyRecord };

/**
 * What the key use cases need of the change recorder. The recorder (src/events/) sits above auth/,
 * whose actors it carries, so auth/ names only this much of it.
 */
export interface KeyChanges {
  record(
    ctx: Pick<TransactionContext, 'actor' | 'ipAddress' | 'transaction'>,
    event: KeyChange,
  ): Promise<void>;
}

/** What a request's key resolves to: who acts, and where. */
export interface KeyAuth {
  actor: KeyActor;
  scope: Scope;
}

export const hashKey = (plaintext: string): string => digest('sha256', plaintext, 'hex');

/** `qk_` and 43 base64url characters: 32 random bytes. */
export const generateKey = (): string => `qk_${randomBytes(32).toString('base64url')}`;

const LAST_ACTIVE_EVERY_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

interface CachedAuth {
  auth: KeyAuth;
  lastActiveAt: string | null;
  /** lastActiveAt in epoch ms, so that a hit need not parse it */
  lastActiveMs: number;
  expiresAt: number;
}

export class KeysService {
  /**
   * Resolved keys by hash, for a few seconds: every request resolves its key, and the hot read
   * paths cannot afford a join per request. A revocation through this process takes effect at once;
   * through another instance or the CLI, within `cacheTtlMs`.
   */
  private readonly cache = new Map<string, CachedAuth>();
  /** Lookups of the cache so far, for the metrics: an expired entry is a miss. */
  private readonly lookups = { hits: 0, misses: 0 };

  /**
   * `reader` answers the lookups of `resolve`: on a SQLite file the read-only connection, so that a
   * request's key is found while a long transaction (an import) holds the writer; the last committed
   * state is what PostgreSQL's pool sees too.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: KeyChanges,
    private readonly cacheTtlMs = 5_000,
    private readonly reader: Kysely<Database> = db,
  ) {}

  /** A key of the scope's project. */
  async create(ctx: UseCaseContext, input: KeyInput): Promise<KeyRecord & { key: string }> {
    const projectId = ctx.scope.project.id;
    const plaintext = input.plaintext ?? generateKey();
    return inTransaction(this.db, ctx, async (tx) => {
      const trx = tx.transaction;
      if (input.versions !== 'all') {
        const found = new Set(await repo.versionIdsOf(trx, projectId, input.versions));
        const missing = input.versions.filter((v) => !found.has(v));
        if (missing.length)
          throw new BadRequestError(`Versions not in project ${projectId}: ${missing.join(', ')}`);
      }
      if (input.userId != null && !(await repo.isUserOf(trx, projectId, input.userId))) {
        throw new BadRequestError(`User ${input.userId} is not a user of project ${projectId}.`);
      }
      const row = await repo.insert(trx, {
        project_id: projectId,
        name: input.name ?? 'API key',
        key_hash: hashKey(plaintext),
        key_prefix: plaintext.slice(0, 7),
        permissions: JSON.stringify(input.permissions === 'all' ? ['all'] : [...new Set(input.permissions)]),
        version_scope: input.versions === 'all' ? null : JSON.stringify([...new Set(input.versions)]),
        user_id: input.userId ?? null,
        revoked_at: null,
        created: toStoredDate(this.clock.now()),
      });
      const key = present(row);
      await this.changes.record(tx, { type: 'api_key.created', projectId, key });
      return { ...key, key: plaintext };
    });
  }

  /** The scope's project's keys, revoked ones included: never a secret, only each key's prefix. */
  async list(ctx: UseCaseContext): Promise<KeyRecord[]> {
    return (await repo.listByProject(ctx.transaction ?? this.db, ctx.scope.project.id)).map(present);
  }

  /**
   * Replaces a key by a new secret with the same name, permissions, versions and user, in one
   * transaction: the old secret stops working when the new one exists. A new key id, not a new hash
   * on the old row, so the audit log and each revision's author keep naming the key that acted.
   */
  async rotate(ctx: UseCaseContext, id: number): Promise<KeyRecord & { key: string; replaces: number }> {
    return inTransaction(this.db, ctx, async (tx) => {
      const row = await repo.findById(tx.transaction, id);
      if (!row || row.project_id !== ctx.scope.project.id)
        throw new NotFoundError(`API key ${id} not found.`);
      if (row.revoked_at !== null)
        throw new BadRequestError(`API key ${id} is revoked: create a new key instead of rotating it.`);
      const permissions = JSON.parse(row.permissions) as string[];
      const created = await this.create(tx, {
        name: row.name,
        permissions: permissions.includes('all') ? 'all' : (permissions as Permission[]),
        versions: row.version_scope === null ? 'all' : (JSON.parse(row.version_scope) as number[]),
        userId: row.user_id,
      });
      await this.revoke(tx, id);
      return { ...created, replaces: id };
    });
  }

  /** Revokes a key of the scope's project; revoking it again answers it unchanged. */
  async revoke(ctx: UseCaseContext, id: number): Promise<KeyRecord> {
    return inTransaction(this.db, ctx, async (tx) => {
      const row = await repo.findById(tx.transaction, id);
      if (!row || row.project_id !== ctx.scope.project.id)
        throw new NotFoundError(`API key ${id} not found.`);
      const hash = row.key_hash;
      this.forget(hash);
      if (row.revoked_at !== null) return present(row);
      const key = present(await repo.revoke(tx.transaction, id, toStoredDate(this.clock.now())));
      await this.changes.record(tx, { type: 'api_key.revoked', projectId: row.project_id, key });
      // Again once committed: a lookup meanwhile read the key, still valid, from the read connection.
      afterCommit(tx.transaction, () => this.forget(hash));
      return key;
    });
  }

  /**
   * What a plaintext key may do and where, or null when the key is unknown or revoked. A key found in
   * the cache is answered at once, without a promise, unless its user's lastActiveAt is due: the
   * request path then goes on in the same turn of the event loop.
   */
  resolve(plaintext: string): KeyAuth | null | Promise<KeyAuth | null> {
    const hash = hashKey(plaintext);
    const now = this.clock.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) {
      this.lookups.hits += 1;
      const user = cached.auth.actor.user;
      if (user === null || now - cached.lastActiveMs < LAST_ACTIVE_EVERY_MS) return cached.auth;
      return this.touchUser(user.id, cached.lastActiveAt).then((stamp) => {
        cached.lastActiveAt = stamp;
        cached.lastActiveMs = stampMs(stamp);
        return cached.auth;
      });
    }
    this.lookups.misses += 1;
    return this.loadIntoCache(hash, now);
  }

  private async loadIntoCache(hash: string, now: number): Promise<KeyAuth | null> {
    const loaded = await this.load(hash);
    if (loaded) {
      if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(hash, {
        ...loaded,
        lastActiveMs: stampMs(loaded.lastActiveAt),
        expiresAt: now + this.cacheTtlMs,
      });
    } else {
      this.cache.delete(hash);
    }
    return loaded?.auth ?? null;
  }

  cacheStats(): { hits: number; misses: number } {
    return { ...this.lookups };
  }

  /** Drops cached keys, e.g. after a project's settings changed in this process. */
  forget(hash?: string): void {
    if (hash === undefined) this.cache.clear();
    else this.cache.delete(hash);
  }

  private async load(hash: string): Promise<{ auth: KeyAuth; lastActiveAt: string | null } | null> {
    const row = await repo.findForAuth(this.reader, hash);
    if (!row || row.revoked_at !== null) return null;
    const granted = JSON.parse(row.permissions) as string[];
    const permissions = new Set<Permission>(
      granted.includes('all')
        ? PERMISSIONS
        : (granted.filter((p) => (PERMISSIONS as readonly string[]).includes(p)) as Permission[]),
    );
    const lastActiveAt = row.userId !== null ? await this.touchUser(row.userId, row.last_active_at) : null;
    const auth: KeyAuth = {
      actor: {
        kind: 'key',
        keyId: row.keyId,
        keyName: row.keyName,
        permissions,
        user: row.userId !== null && row.userEmail !== null ? { id: row.userId, email: row.userEmail } : null,
      },
      scope: {
        project: {
          id: row.projectId,
          name: row.projectName,
          plan: row.plan,
          access: row.access,
          basePath: row.base_path,
          host: row.host,
        },
        versions: row.version_scope === null ? null : new Set(JSON.parse(row.version_scope) as number[]),
      },
    };
    return { auth, lastActiveAt };
  }

  /** lastActiveAt is written at most once a minute, so reads stay reads. Returns the value now stored. */
  private async touchUser(userId: number, lastActiveAt: string | null): Promise<string | null> {
    const now = this.clock.now();
    if (lastActiveAt !== null && now - Date.parse(lastActiveAt) < LAST_ACTIVE_EVERY_MS) return lastActiveAt;
    const stamp = toStoredDate(now);
    await repo.touchUser(this.db, userId, stamp);
    return stamp;
  }
}

const stampMs = (stamp: string | null): number => (stamp === null ? -Infinity : Date.parse(stamp));

function present(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    prefix: row.key_prefix,
    permissions: JSON.parse(row.permissions) as string[],
    versions: row.version_scope === null ? 'all' : (JSON.parse(row.version_scope) as number[]),
    userId: row.user_id,
    created: formatApiDate(row.created),
    revoked: formatApiDate(row.revoked_at),
  };
}
