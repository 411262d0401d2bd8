import { createHash, randomBytes } from 'node:crypto';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { afterCommit } from '../../db/after-commit.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { MailKind } from '../../db/schema.reader-login.ts';
import { ownTransaction } from '../../db/transaction.ts';
import type { CounterStore } from '../../ratelimit/counter-store.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { isEmail, normaliseEmail } from '../../shared/email.ts';
import { readerAuditRow, writeAuditRow, type ReaderEvent } from '../audit/audit.reader-events.ts';
import { mailOutboxRepository as outbox } from './mail-outbox.repository.ts';
import { jwtKeyDigest } from './reader-jwt-key.ts';
import { saveJwtKey } from './reader-jwt-key.setting.ts';
import { readerLoginRepository as repo } from './reader-login.repository.ts';
import { sessionIdOf, signedSession } from './reader-session-cookie.ts';
import type { SiteKeys } from './site-keys.ts';
import { verifyReaderToken } from './reader-token.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** A link asked for at the login page is good for this long (site.md §6). */
export const LINK_VALIDITY_MS = 15 * MINUTE_MS;
/** An invitation's link lasts until its grant expires, and at most this long. */
export const INVITATION_VALIDITY_MS = 30 * DAY_MS;
/** A session started by a link lasts this long at most; its grant is checked at every request. */
const LINK_SESSION_MS = 30 * DAY_MS;
const WINDOW_MS = 15 * MINUTE_MS;
/** Link requests per client address, per address asked for, and sign-in attempts per client, per window. */
const LIMITS = { linksPerClient: 10, linksPerAddress: 5, attemptsPerClient: 30 } as const;

/** Where a request reached a private site, as the login needs it. */
export interface LoginSite {
  projectId: number;
  /** the absolute root of the site (links in mails lead there) */
  origin: string;
  ipAddress: string | null;
}

export type LinkRequest = 'sent' | 'invalid' | 'limited';
export type SessionState = 'valid' | 'none' | 'ended';
export type Started = { ok: true; cookie: string; maxAgeSeconds: number } | { ok: false; reason: string };

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Reader login on private sites (site.md §6, docs/decisions/0030-reader-login.md): links asked for
 * and mailed through the outbox, sessions checked against their grant at every request, the project's
 * own login (JWT), and the audit of each.
 */
export class ReaderLoginService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly counters: CounterStore,
    private readonly keys: SiteKeys,
    private readonly config: Config,
    /** wakes the mail outbox once a mail's transaction has committed */
    private readonly nudge: () => void,
  ) {}

  /**
   * The login form's request for a link. The same work whatever the address: two counters, then one
   * transaction that writes the outbox row and the audit entry; whether the address has a grant is
   * looked at only when the outbox sends (mail-dispatcher.ts), after this has answered.
   */
  async requestLink(site: LoginSite, rawEmail: string, next: string): Promise<LinkRequest> {
    const email = normaliseEmail(rawEmail);
    if (!isEmail(email)) return 'invalid';
    const now = this.clock.now();
    if (await this.over(`site-link:client:${site.ipAddress ?? '-'}`, LIMITS.linksPerClient, now))
      return 'limited';
    const addressKey = createHash('sha256').update(`${site.projectId}\n${email}`).digest('hex');
    const limited = await this.over(`site-link:address:${addressKey}`, LIMITS.linksPerAddress, now);
    const at = toStoredDate(now);
    await ownTransaction(this.database.db, async (trx) => {
      if (!limited) await this.enqueue(trx, site.projectId, 'link', email, site.origin, next, at);
      await this.audit(trx, site, { type: 'link_requested', email, limited }, at);
    });
    return 'sent';
  }

  /** Queues an invitation to a grant's address (POST /reader-access), in the grant's transaction. */
  async invite(trx: Transaction<Database>, projectId: number, email: string, origin: string): Promise<void> {
    await this.enqueue(trx, projectId, 'invitation', email, origin, '/', toStoredDate(this.clock.now()));
  }

  /** Opens a link from a mail: single use, unexpired, its grant still active. */
  async verifyLink(site: LoginSite, token: string): Promise<Started> {
    const now = this.clock.now();
    if (await this.over(`site-verify:client:${site.ipAddress ?? '-'}`, LIMITS.attemptsPerClient, now)) {
      return { ok: false, reason: 'too many attempts' };
    }
    const at = toStoredDate(now);
    const db = this.database.db;
    return ownTransaction(db, async (trx) => {
      const row = /^[A-Za-z0-9_-]{43}$/.test(token)
        ? await repo.tokenByHash(trx, site.projectId, hashToken(token))
        : undefined;
      const grant = row === undefined ? undefined : await repo.grantById(trx, row.access_id);
      const reason =
        row === undefined
          ? 'unknown link'
          : row.used_at !== null
            ? 'link already used'
            : row.expires_at <= at
              ? 'link expired'
              : !active(grant, at)
                ? 'no active grant'
                : null;
      if (
        reason !== null ||
        row === undefined ||
        grant === undefined ||
        !(await repo.useToken(trx, row.id, at))
      ) {
        const why = reason ?? 'link already used';
        await this.audit(
          trx,
          site,
          { type: 'verify_failed', via: 'link', reason: why, email: grant?.email ?? null },
          at,
        );
        return { ok: false, reason: why };
      }
      return this.start(
        trx,
        site,
        { kind: 'link', email: grant.email, accessId: grant.id },
        now + LINK_SESSION_MS,
      );
    });
  }

  /** A token from the project's own login (site.md §6): checked by reader-token.ts. */
  async jwtLogin(site: LoginSite, token: string): Promise<Started> {
    const now = this.clock.now();
    if (await this.over(`site-verify:client:${site.ipAddress ?? '-'}`, LIMITS.attemptsPerClient, now)) {
      return { ok: false, reason: 'too many attempts' };
    }
    const stored = await repo.jwtKey(this.database.db, site.projectId);
    const verified =
      stored === null
        ? ({ ok: false, reason: 'this site has no custom login' } as const)
        : await verifyReaderToken(token, stored, () => this.keys.sealer(), now);
    const at = toStoredDate(now);
    return ownTransaction(this.database.db, async (trx) => {
      if (!verified.ok || stored === null) {
        await this.audit(
          trx,
          site,
          { type: 'verify_failed', via: 'jwt', reason: verified.ok ? '' : verified.reason, email: null },
          at,
        );
        return { ok: false, reason: verified.ok ? 'refused' : verified.reason };
      }
      return this.start(
        trx,
        site,
        { kind: 'jwt', email: verified.email, digest: jwtKeyDigest(stored) },
        verified.expiresAt,
      );
    });
  }

  /**
   * Whether a request's cookie names a live session of the site: one read by primary key, joined to
   * the session's grant and the project's login key, so a revoke, an expiry, a logout or a changed key
   * made on any instance shows at the very next request.
   */
  async check(projectId: number, cookie: string | undefined): Promise<SessionState> {
    if (cookie === undefined) return 'none';
    const id = sessionIdOf(this.keys.session(), projectId, cookie);
    if (id === null) return 'ended';
    const session = await repo.session(this.database.reader, id);
    const at = toStoredDate(this.clock.now());
    if (session === undefined || session.projectId !== projectId) return 'ended';
    if (session.endedAt !== null || session.expiresAt <= at) return 'ended';
    if (session.kind === 'link') {
      const grantLive =
        session.grantId !== null &&
        session.grantRevokedAt === null &&
        (session.grantExpiresAt === null || session.grantExpiresAt > at);
      return grantLive ? 'valid' : 'ended';
    }
    const current = session.projectJwtKey === null ? null : jwtKeyDigest(session.projectJwtKey);
    return current !== null && current === session.jwtKeyDigest ? 'valid' : 'ended';
  }

  /** Ends the session a cookie names (POST {site}/logout), and audits it. */
  async logout(site: LoginSite, cookie: string | undefined): Promise<void> {
    if (cookie === undefined) return;
    const id = sessionIdOf(this.keys.session(), site.projectId, cookie);
    if (id === null) return;
    const at = toStoredDate(this.clock.now());
    await ownTransaction(this.database.db, async (trx) => {
      const email = await repo.endSession(trx, site.projectId, id, at);
      if (email !== undefined) await this.audit(trx, site, { type: 'logout', email }, at);
    });
  }

  /**
   * Sets or clears the key of the project's own login (`--reader-jwt-key FILE`, '' clears): audited
   * under `security` as its algorithm and a digest, never the key.
   */
  setJwtKey(ctx: UseCaseContext, file: Buffer | null): Promise<void> {
    return saveJwtKey(this.database.db, this.clock, ctx, file, () => this.keys.sealer());
  }

  /** Forgets links and sessions that ended a day ago or more. */
  purge(): Promise<number> {
    const before = toStoredDate(this.clock.now() - DAY_MS);
    return this.database.db.transaction().execute((trx) => repo.purge(trx, before));
  }

  private async start(
    trx: Executor,
    site: LoginSite,
    who: { kind: 'link'; email: string; accessId: number } | { kind: 'jwt'; email: string; digest: string },
    until: number,
  ): Promise<Started> {
    const id = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await repo.insertSession(trx, {
      id,
      project_id: site.projectId,
      access_id: who.kind === 'link' ? who.accessId : null,
      email: who.email,
      kind: who.kind,
      jwt_key_digest: who.kind === 'jwt' ? who.digest : null,
      expires_at: toStoredDate(until),
      ended_at: null,
      created: toStoredDate(now),
    });
    const event: ReaderEvent = {
      type: 'session_started',
      sessionKind: who.kind,
      email: who.email,
      grantId: who.kind === 'link' ? who.accessId : null,
    };
    await this.audit(trx, site, event, toStoredDate(now));
    return {
      ok: true,
      cookie: signedSession(this.keys.session(), site.projectId, id),
      maxAgeSeconds: (until - now) / 1000,
    };
  }

  private async enqueue(
    trx: Transaction<Database>,
    projectId: number,
    kind: MailKind,
    email: string,
    origin: string,
    next: string,
    at: string,
  ): Promise<void> {
    await outbox
      .insertion(trx, {
        project_id: projectId,
        kind,
        email,
        site_root: origin,
        next_path: next === '/' ? null : next,
        status: 'pending',
        next_attempt_at: at,
        claimed_until: null,
        claim_token: null,
        last_error: null,
        created: at,
        completed_at: null,
      })
      .execute();
    afterCommit(trx, this.nudge);
  }

  private async audit(trx: Executor, site: LoginSite, event: ReaderEvent, at: string): Promise<void> {
    await writeAuditRow(trx, readerAuditRow(site.projectId, event, at, site.ipAddress));
  }

  /** Counts a hit; true when it is past the limit of its window. */
  private async over(key: string, limit: number, now: number): Promise<boolean> {
    const counted = await this.counters.increment(key, WINDOW_MS, now);
    return counted.count > Math.ceil(limit * this.config.rateLimitScale);
  }
}

function active(
  grant: { expires_at: string | null; revoked_at: string | null } | undefined,
  at: string,
): boolean {
  return (
    grant !== undefined && grant.revoked_at === null && (grant.expires_at === null || grant.expires_at > at)
  );
}
