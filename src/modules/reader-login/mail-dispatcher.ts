import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import type { JobLog } from '../../jobs/job.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { linkMessage } from './mail-message.tsx';
import { mailOutboxRepository as repo, type ClaimedMail } from './mail-outbox.repository.ts';
import type { MailSender } from './mail-sender.ts';
import { readerLoginRepository as logins } from './reader-login.repository.ts';
import { hashToken, INVITATION_VALIDITY_MS, LINK_VALIDITY_MS } from './reader-login.service.ts';

/** After a failed attempt, the next waits this long; after the last, the mail has failed. */
export const MAIL_RETRY_DELAYS_MS = [
  10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000,
] as const;
/** Looked at again this soon after a mail is queued here (ms, one after the other while none shows). */
const NUDGE_STEPS_MS = [2, 10, 25, 50, 100, 250, 500];
const POLL_MS = 1_000;
const BATCH = 4;
/** A lease outlives the longest attempt (three SMTP timeouts) by this much. */
const LEASE_MS = 120_000;
const KEEP_DAYS_MS = 7 * 24 * 60 * 60 * 1000;
const quiet: JobLog = { info: () => undefined, warn: () => undefined };

/**
 * Sends the mail outbox after the answers that queued it (decision 0030). Every instance runs one;
 * a claim leases due mails (SKIP LOCKED on PostgreSQL). Only at sending is the grant looked at: an
 * address without an active one gets nothing (the row is dropped); otherwise a link's token is made,
 * stored as its hash, and mailed; a failed send forgets that token and is retried later, so a mail
 * server that is down loses no mail, and a restart none either (the row waits in the database).
 */
export class MailDispatcher {
  private log: JobLog = quiet;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private closed = false;
  private nudgeStep = NUDGE_STEPS_MS.length;
  private running: Promise<number> | null = null;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly sender: MailSender,
  ) {}

  start(log: JobLog): void {
    if (this.loop !== null || this.closed) return;
    this.log = log;
    this.loop = this.run();
  }

  /** A mail was queued here: look soon, in steps, until its commit shows. */
  nudge(): void {
    this.nudgeStep = 0;
    this.wake?.();
  }

  /** Sends what is due now, one batch after another; how many were handled (tests call it). */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  /** One claim and its sends; one at a time in this process. */
  runOnce(): Promise<number> {
    const previous = this.running ?? Promise.resolve(0);
    const next = previous.catch(() => 0).then(() => this.batch());
    this.running = next;
    return next;
  }

  purge(): Promise<number> {
    const before = toStoredDate(this.clock.now() - KEEP_DAYS_MS);
    return this.database.db.transaction().execute((trx) => repo.purge(trx, before));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    await this.loop;
    await this.running?.catch(() => 0);
    this.sender.close();
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      let handled = 0;
      try {
        handled = await this.runOnce();
      } catch (error) {
        if (!this.closed)
          this.log.warn({ err: error }, 'the mail outbox could not be read; it is tried again');
      }
      if (this.closed) return;
      let delay = POLL_MS;
      if (handled > 0) delay = 0;
      else if (this.nudgeStep < NUDGE_STEPS_MS.length) delay = NUDGE_STEPS_MS[this.nudgeStep++] ?? POLL_MS;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, delay);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = null;
    }
  }

  private async batch(): Promise<number> {
    const now = this.clock.now();
    const token = randomUUID();
    const claimed = await this.database.db.transaction().execute(async (trx) => {
      const due = await repo.due(trx, this.database.dialect, toStoredDate(now), BATCH);
      await repo.lease(
        trx,
        due.map((m) => m.id),
        toStoredDate(now + LEASE_MS),
        token,
      );
      return due;
    });
    for (const mail of claimed) await this.attempt(mail, token);
    return claimed.length;
  }

  private async attempt(mail: ClaimedMail, lease: string): Promise<void> {
    const db = this.database.db;
    const now = this.clock.now();
    const at = toStoredDate(now);
    const grant = await logins.grantOf(db, mail.projectId, mail.email);
    const active =
      grant !== undefined &&
      grant.revoked_at === null &&
      (grant.expires_at === null || grant.expires_at > at);
    if (grant === undefined || !active) {
      await repo.finish(db, mail.id, lease, {
        status: 'dropped',
        attempts: mail.attempts,
        nextAttemptAt: at,
        completedAt: at,
        error: null,
      });
      return;
    }
    const validity =
      mail.kind === 'link'
        ? now + LINK_VALIDITY_MS
        : Math.min(
            now + INVITATION_VALIDITY_MS,
            grant.expires_at === null ? Infinity : Date.parse(grant.expires_at),
          );
    const secret = randomBytes(32).toString('base64url');
    const tokenId = await logins.insertToken(db, {
      project_id: mail.projectId,
      access_id: grant.id,
      token_hash: hashToken(secret),
      expires_at: toStoredDate(validity),
      used_at: null,
      created: at,
    });
    const next = mail.nextPath === null ? '' : `&next=${encodeURIComponent(mail.nextPath)}`;
    const link = `${mail.siteRoot}/login/verify?token=${secret}${next}`;
    const attempts = mail.attempts + 1;
    try {
      await this.sender.send(
        mail.email,
        linkMessage({ kind: mail.kind, projectName: mail.projectName, link, expires: new Date(validity) }),
        this.log,
      );
    } catch (error) {
      // Never delivered: its token must not outlive the attempt.
      await logins.deleteToken(db, tokenId);
      const delay = MAIL_RETRY_DELAYS_MS[attempts - 1];
      const later = this.clock.now();
      await repo.finish(db, mail.id, lease, {
        status: delay === undefined ? 'failed' : 'pending',
        attempts,
        nextAttemptAt: toStoredDate(later + (delay ?? 0)),
        completedAt: delay === undefined ? toStoredDate(later) : null,
        error: error instanceof Error ? error.message.slice(0, 500) : String(error),
      });
      this.log.warn(
        { mail: mail.id, attempts, err: error },
        'a mail could not be sent; it is tried again later',
      );
      return;
    }
    const done = toStoredDate(this.clock.now());
    await repo.finish(db, mail.id, lease, {
      status: 'sent',
      attempts,
      nextAttemptAt: done,
      completedAt: done,
      error: null,
    });
  }
}
