import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/schema.ts';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import { formatApiDate, toStoredDate } from '../../shared/dates.ts';
import type { AuditRecorder } from '../audit/audit.recorder.ts';
import type { Actor, ChangeContext } from './actor.ts';
import { PERMISSIONS, type Permission } from './permissions.ts';

export interface KeyInput {
  projectId: number;
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

export const hashKey = (plaintext: string): string => createHash('sha256').update(plaintext).digest('hex');

/** `qk_` and 43 base64url characters: 32 random bytes. */
export const generateKey = (): string => `qk_${randomBytes(32).toString('base64url')}`;

const LAST_ACTIVE_EVERY_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

interface CachedActor {
  actor: Actor;
  lastActiveAt: string | null;
  expiresAt: number;
}

export class KeysService {
  /**
   * Resolved keys by hash, for a few seconds: every request resolves its key, and the hot read
   * paths cannot afford a join per request. A revocation through this process takes effect at once;
   * through another instance or the CLI, within `cacheTtlMs`.
   */
  private readonly cache = new Map<string, CachedActor>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly cacheTtlMs = 5_000,
  ) {}

  async create(input: KeyInput, ctx: ChangeContext): Promise<KeyRecord & { key: string }> {
    const plaintext = input.plaintext ?? generateKey();
    const now = toStoredDate(this.clock.now());
    return this.db.transaction().execute(async (trx) => {
      const project = await trx
        .selectFrom('projects')
        .select('id')
        .where('id', '=', input.projectId)
        .executeTakeFirst();
      if (!project) throw new NotFoundError(`Project ${input.projectId} not found.`);
      if (input.versions !== 'all') {
        const found = input.versions.length
          ? await trx
              .selectFrom('versions')
              .select('id')
              .where('project_id', '=', input.projectId)
              .where('id', 'in', input.versions)
              .execute()
          : [];
        const missing = input.versions.filter((v) => !found.some((f) => f.id === v));
        if (missing.length)
          throw new BadRequestError(`Versions not in project ${input.projectId}: ${missing.join(', ')}`);
      }
      if (input.userId != null) {
        const user = await trx
          .selectFrom('users')
          .select('id')
          .where('id', '=', input.userId)
          .where('project_id', '=', input.projectId)
          .executeTakeFirst();
        if (!user)
          throw new BadRequestError(`User ${input.userId} is not a user of project ${input.projectId}.`);
      }
      const row = await trx
        .insertInto('api_keys')
        .values({
          project_id: input.projectId,
          name: input.name ?? 'API key',
          key_hash: hashKey(plaintext),
          key_prefix: plaintext.slice(0, 7),
          permissions: JSON.stringify(
            input.permissions === 'all' ? ['all'] : [...new Set(input.permissions)],
          ),
          version_scope: input.versions === 'all' ? null : JSON.stringify([...new Set(input.versions)]),
          user_id: input.userId ?? null,
          revoked_at: null,
          created: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const record = present(row);
      await this.audit.record(trx, ctx, {
        projectId: row.project_id,
        scope: 'security',
        entity: 'apiKey',
        entityId: row.id,
        operation: 'INS',
        message: `API key '${row.name}' created`,
        details: { permissions: record.permissions, versions: record.versions, prefix: record.prefix },
      });
      return { ...record, key: plaintext };
    });
  }

  async revoke(id: number, ctx: ChangeContext): Promise<KeyRecord> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) throw new NotFoundError(`API key ${id} not found.`);
      this.forget(row.key_hash);
      if (row.revoked_at !== null) return present(row);
      const updated = await trx
        .updateTable('api_keys')
        .set({ revoked_at: toStoredDate(this.clock.now()) })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.audit.record(trx, ctx, {
        projectId: row.project_id,
        scope: 'security',
        entity: 'apiKey',
        entityId: id,
        operation: 'DEL',
        message: `API key '${row.name}' revoked`,
      });
      return present(updated);
    });
  }

  /** The actor for a plaintext key, or null when the key is unknown or revoked. */
  async resolve(plaintext: string): Promise<Actor | null> {
    const hash = hashKey(plaintext);
    const now = this.clock.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) {
      if (cached.actor.user)
        cached.lastActiveAt = await this.touchUser(cached.actor.user.id, cached.lastActiveAt);
      return cached.actor;
    }
    const actor = await this.load(hash);
    if (actor) {
      if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(hash, { ...actor, expiresAt: now + this.cacheTtlMs });
    } else {
      this.cache.delete(hash);
    }
    return actor?.actor ?? null;
  }

  /** Drops cached keys, e.g. after a project's settings changed in this process. */
  forget(hash?: string): void {
    if (hash === undefined) this.cache.clear();
    else this.cache.delete(hash);
  }

  private async load(hash: string): Promise<{ actor: Actor; lastActiveAt: string | null } | null> {
    const row = await this.db
      .selectFrom('api_keys as k')
      .innerJoin('projects as p', 'p.id', 'k.project_id')
      .leftJoin('users as u', 'u.id', 'k.user_id')
      .select([
        'k.id as keyId',
        'k.name as keyName',
        'k.permissions',
        'k.version_scope',
        'k.revoked_at',
        'p.id as projectId',
        'p.name as projectName',
        'p.plan',
        'p.access',
        'p.base_path',
        'p.host',
        'u.id as userId',
        'u.email as userEmail',
        'u.last_active_at',
      ])
      .where('k.key_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) return null;
    const granted = JSON.parse(row.permissions) as string[];
    const permissions = new Set<Permission>(
      granted.includes('all')
        ? PERMISSIONS
        : (granted.filter((p) => (PERMISSIONS as readonly string[]).includes(p)) as Permission[]),
    );
    const lastActiveAt = row.userId !== null ? await this.touchUser(row.userId, row.last_active_at) : null;
    const actor: Actor = {
      keyId: row.keyId,
      keyName: row.keyName,
      project: {
        id: row.projectId,
        name: row.projectName,
        plan: row.plan,
        access: row.access,
        basePath: row.base_path,
        host: row.host,
      },
      permissions,
      versionScope: row.version_scope === null ? null : new Set(JSON.parse(row.version_scope) as number[]),
      user: row.userId !== null && row.userEmail !== null ? { id: row.userId, email: row.userEmail } : null,
    };
    return { actor, lastActiveAt };
  }

  /** lastActiveAt is written at most once a minute, so reads stay reads. Returns the value now stored. */
  private async touchUser(userId: number, lastActiveAt: string | null): Promise<string | null> {
    const now = this.clock.now();
    if (lastActiveAt !== null && now - Date.parse(lastActiveAt) < LAST_ACTIVE_EVERY_MS) return lastActiveAt;
    const stamp = toStoredDate(now);
    await this.db.updateTable('users').set({ last_active_at: stamp }).where('id', '=', userId).execute();
    return stamp;
  }
}

function present(row: {
  id: number;
  project_id: number;
  name: string;
  key_prefix: string;
  permissions: string;
  version_scope: string | null;
  user_id: number | null;
  created: string;
  revoked_at: string | null;
}): KeyRecord {
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
