import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import { toStoredDate } from '../../shared/dates.ts';
import type { Resolver } from './webhook-address.ts';
import type { SecretBox } from './webhook-secrets.ts';
import { WebhookSender, type AttemptResult } from './webhook-sender.ts';
import { outboxRepository as repo, type ClaimedDelivery } from './webhooks.outbox.repository.ts';

/** After the first attempt fails, the next ones wait this long (extensions §5); then it has failed. */
export const RETRY_DELAYS_MS = [5_000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000] as const;
/**
 * After a local change is recorded, the outbox is looked at again this soon (ms, one after the other
 * while it finds nothing): the change's transaction commits a moment after it is recorded, and the
 * delay from commit to receipt should not be the poll interval.
 */
const NUDGE_STEPS_MS = [2, 10, 25, 50, 100, 250, 500];
/** A lease outlives the longest attempt by this much; past it another instance may take the delivery. */
const LEASE_MARGIN_MS = 60_000;
/** Deliveries delivered or given up are kept this long in the deliveries log, then purged. */
export const KEEP_DELIVERIES_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface DispatcherOptions {
  timeoutMs: number;
  pollIntervalMs: number;
  /** attempts in flight at once in this instance; one webhook gets at most half of them */
  concurrency: number;
  allowPrivate: boolean;
  resolver: Resolver;
  onError: (error: unknown) => void;
}

/**
 * Sends the outbox. Every instance runs one: a claim is a short transaction that leases due deliveries
 * (on PostgreSQL locking them with SKIP LOCKED, so two instances never lease the same one); each is
 * then sent outside any transaction, its result stored if the lease is still ours, and retried later
 * on failure. A lease left by a crashed instance expires and the delivery is claimed again.
 */
export class WebhookDispatcher {
  private readonly sender: WebhookSender;
  private readonly inFlight = new Map<Promise<void>, number>();
  private readonly stop = new AbortController();
  private started = false;
  private closed = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private nudgeStep = NUDGE_STEPS_MS.length;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
    private readonly options: DispatcherOptions,
  ) {
    this.sender = new WebhookSender(options);
  }

  /** Starts sending in the background (the server; the CLI never does). */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.loop = this.run();
  }

  /** A change was recorded here: look at the outbox soon, in steps, until its commit shows. */
  nudge(): void {
    if (!this.started) return;
    this.nudgeStep = 0;
    this.wake?.();
  }

  /** One claim, and every attempt it started, to their end; how many were claimed (tests). */
  async runOnce(): Promise<number> {
    const claimed = await this.fill();
    await Promise.all(this.inFlight.keys());
    return claimed;
  }

  /** Claims and sends until nothing is due (tests). */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  /** Removes deliveries finished more than KEEP_DELIVERIES_DAYS ago (on start, daily, `bin/quire purge`). */
  purge(): Promise<number> {
    const before = toStoredDate(this.clock.now() - KEEP_DELIVERIES_DAYS * DAY_MS);
    return this.database.db.transaction().execute((trx) => repo.purge(trx, before));
  }

  /** Stops: attempts in flight are aborted and their leases given back, so nothing waits for a lease. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop.abort();
    this.wake?.();
    await this.loop;
    await Promise.all(this.inFlight.keys());
    await this.sender.close();
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      let claimed = 0;
      try {
        claimed = await this.fill();
      } catch (error) {
        if (!this.closed) this.options.onError(error);
      }
      if (this.closed) return;
      const full = this.inFlight.size >= this.options.concurrency;
      let delay = this.options.pollIntervalMs;
      if (claimed > 0 && !full) delay = 0;
      else if (this.nudgeStep < NUDGE_STEPS_MS.length) delay = NUDGE_STEPS_MS[this.nudgeStep++]!;
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

  /** Claims what the free slots allow and starts sending it; how many were claimed. */
  private async fill(): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0 || this.closed) return 0;
    const token = randomUUID();
    const claimed = await this.claim(free, token);
    for (const delivery of claimed) {
      const attempt: Promise<void> = this.attempt(delivery, token)
        .catch((error: unknown) => this.options.onError(error))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.wake?.();
        });
      this.inFlight.set(attempt, delivery.webhookId);
    }
    return claimed.length;
  }

  private async claim(free: number, token: string): Promise<ClaimedDelivery[]> {
    const now = this.clock.now();
    const perWebhook = Math.max(1, Math.ceil(this.options.concurrency / 2));
    const busy = new Map<number, number>();
    for (const webhookId of this.inFlight.values()) busy.set(webhookId, (busy.get(webhookId) ?? 0) + 1);
    const full = [...busy].filter(([, taken]) => taken >= perWebhook).map(([webhookId]) => webhookId);
    return this.database.db.transaction().execute(async (trx) => {
      const candidates = await repo.candidates(trx, this.database.dialect, toStoredDate(now), free * 4, full);
      // A webhook already at its share waits: a slow receiver never takes every slot.
      const chosen: ClaimedDelivery[] = [];
      for (const candidate of candidates) {
        if (chosen.length >= free) break;
        const taken = busy.get(candidate.webhookId) ?? 0;
        if (taken >= perWebhook) continue;
        busy.set(candidate.webhookId, taken + 1);
        chosen.push(candidate);
      }
      const until = toStoredDate(now + this.options.timeoutMs + LEASE_MARGIN_MS);
      await repo.lease(
        trx,
        chosen.map((d) => d.id),
        until,
        token,
      );
      return chosen;
    });
  }

  private async attempt(delivery: ClaimedDelivery, token: string): Promise<void> {
    const startedAt = this.clock.now();
    let result: AttemptResult;
    try {
      const secret = this.secrets.decrypt(delivery.secret);
      result = await this.sender.send(
        {
          id: delivery.messageId,
          url: delivery.url,
          secret,
          body: delivery.payload,
          timestamp: Math.floor(startedAt / 1000),
        },
        this.stop.signal,
      );
    } catch (error) {
      result = {
        statusCode: null,
        durationMs: 0,
        error: error instanceof Error ? error.message : String(error),
      };
    }
    if (this.closed && result.error !== null) {
      // Cut short by the stop, not by the receiver: not an attempt; due again for whoever runs next.
      await repo.release(this.database.db, delivery.id, token);
      return;
    }
    const attempts = delivery.attempts + 1;
    const now = this.clock.now();
    const delivered = result.error === null;
    const delay = RETRY_DELAYS_MS[attempts - 1];
    const status = delivered ? 'delivered' : delay === undefined ? 'failed' : 'pending';
    await this.database.db.transaction().execute((trx) =>
      repo.finish(trx, delivery.id, token, {
        status,
        attempts,
        nextAttemptAt: toStoredDate(status === 'pending' ? now + (delay ?? 0) : now),
        completedAt: status === 'pending' ? null : toStoredDate(now),
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
        started: toStoredDate(startedAt),
      }),
    );
  }
}
