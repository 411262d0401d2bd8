import { canSeeVersion, type Scope, type UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { DatabaseHandle } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import { inTransaction } from '../../db/transaction.ts';
import { InvalidFieldError, NotFoundError } from '../../errors.ts';
import type { ChangeRecorder } from '../changes/change-events.ts';
import { decodeAfterCursor, decodeCursor, encodeAfterCursor, encodeCursor } from '../../shared/cursor.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { hostOf, refusalOf, type Resolver } from './webhook-address.ts';
import { newSecret, type SecretBox } from './webhook-secrets.ts';
import {
  presentDelivery,
  presentWebhook,
  webhookVersions,
  type AttemptRow,
  type Webhook,
} from './webhooks.presenter.ts';
import { outboxRepository as outbox } from './webhooks.outbox.repository.ts';
import { webhooksRepository as repo } from './webhooks.repository.ts';
import {
  DELIVERIES_PER_ANSWER,
  MAX_DESCRIPTION_LENGTH,
  MAX_URL_LENGTH,
  WEBHOOK_EVENT_TYPES,
  type DeliveryList,
  type DeliveryListInput,
  type WebhookCreateInput,
  type WebhookList,
  type WebhookListInput,
} from './webhooks.schemas.ts';

export interface WebhooksOptions {
  /** WEBHOOK_ALLOW_PRIVATE: targets on loopback and private networks are allowed */
  allowPrivate: boolean;
  resolver: Resolver;
}

/** A webhook as created: the only time its secret is shown. */
export type CreatedWebhook = Webhook & { secret: string };

/** Webhooks of a project (extensions §5): registered, listed, deleted, and their deliveries read. */
export class WebhooksService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    private readonly secrets: SecretBox,
    private readonly options: WebhooksOptions,
  ) {}

  async create(ctx: UseCaseContext, input: WebhookCreateInput): Promise<CreatedWebhook> {
    // The schema checks these for HTTP; the CLI comes here directly.
    const url = await this.checkUrl(input.url);
    const events = checkEvents(input.events);
    const description = input.description ?? null;
    if (description !== null && description.length > MAX_DESCRIPTION_LENGTH) {
      throw new InvalidFieldError(
        'body.description',
        `must NOT have more than ${MAX_DESCRIPTION_LENGTH} characters`,
      );
    }
    // Before the transaction: on PostgreSQL without WEBHOOK_SECRET_KEY this is the 503.
    const secret = newSecret();
    const sealed = this.secrets.encrypt(secret);
    return inTransaction(this.database.db, ctx, async (tx) => {
      const webhook = presentWebhook(
        await repo.insert(tx.transaction, {
          project_id: ctx.scope.project.id,
          url,
          events: JSON.stringify(events),
          description,
          secret: sealed,
          created: toStoredDate(this.clock.now()),
          // What the key may see is what its webhook is sent (decision 0019).
          versions:
            ctx.scope.versions === null
              ? null
              : JSON.stringify([...ctx.scope.versions].sort((a, b) => a - b)),
        }),
      );
      await this.changes.record(tx, { type: 'webhook.created', projectId: ctx.scope.project.id, webhook });
      return { ...webhook, secret };
    });
  }

  /** Every webhook the context may see, oldest first (the command line's list). */
  async list(ctx: UseCaseContext): Promise<{ items: Webhook[] }> {
    const rows = await repo.listLive(ctx.transaction ?? this.database.reader, ctx.scope.project.id);
    return { items: rows.filter((row) => reachable(ctx.scope, row.versions)).map(presentWebhook) };
  }

  /**
   * A page of them, oldest first, after the cursor's. A project holds few webhooks, and which of
   * them a key sees depends on its versions, so the page is cut from the whole list.
   */
  async page(ctx: UseCaseContext, query: WebhookListInput): Promise<WebhookList> {
    const { items } = await this.list(ctx);
    const after = query.cursor === undefined ? 0 : decodeAfterCursor(query.cursor);
    const hits = query.hits ?? 100;
    const rest = items.filter((webhook) => webhook.id > after);
    const data = rest.slice(0, hits);
    const last = data.at(-1);
    return {
      data,
      cursor: rest.length > hits && last !== undefined ? encodeAfterCursor(last.id) : null,
      count: data.length,
      total: items.length,
      items: data,
    };
  }

  async delete(ctx: UseCaseContext, id: number): Promise<Record<string, never>> {
    await inTransaction(this.database.db, ctx, async (tx) => {
      const webhook = presentWebhook(await this.webhook(tx.transaction, ctx.scope, id));
      await repo.softDelete(tx.transaction, id, toStoredDate(this.clock.now()));
      await this.changes.record(tx, { type: 'webhook.deleted', projectId: ctx.scope.project.id, webhook });
    });
    return {};
  }

  /** A webhook's deliveries, newest first, a keyset page at a time, each with its attempts. */
  async deliveries(ctx: UseCaseContext, id: number, query: DeliveryListInput): Promise<DeliveryList> {
    const db = ctx.transaction ?? this.database.reader;
    await this.webhook(db, ctx.scope, id);
    const before = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const rows = await repo.deliveries(db, id, before, DELIVERIES_PER_ANSWER + 1);
    const page = rows.slice(0, DELIVERIES_PER_ANSWER);
    const attempts = new Map<number, AttemptRow[]>();
    for (const attempt of await repo.attemptsOf(
      db,
      page.map((row) => row.id),
    )) {
      const list = attempts.get(attempt.delivery_id) ?? [];
      list.push(attempt);
      attempts.set(attempt.delivery_id, list);
    }
    const last = page.at(-1);
    const data = page.map((row) => presentDelivery(row, attempts.get(row.id) ?? []));
    return {
      data,
      cursor: rows.length > DELIVERIES_PER_ANSWER && last !== undefined ? encodeCursor(last.id) : null,
      count: data.length,
      items: data,
    };
  }

  /** The project a live webhook belongs to (the CLI acts on a webhook by its id alone). */
  async projectOf(id: number): Promise<number> {
    const projectId = await repo.projectOf(this.database.db, id);
    if (projectId === undefined) throw new NotFoundError(`Webhook ${id} not found.`);
    return projectId;
  }

  /** Deliveries of every project not yet sent nor given up (the metrics' queue depth). */
  pendingDeliveries(): Promise<number> {
    return outbox.countPending(this.database.reader);
  }

  /**
   * A live webhook of the scope's project; another project's is as unknown as a missing one, and so
   * is one that reaches versions beyond the scope's.
   */
  private async webhook(db: Executor, scope: Scope, id: number) {
    const row = await repo.findLive(db, scope.project.id, id);
    if (!row || !reachable(scope, row.versions)) throw new NotFoundError(`Webhook ${id} not found.`);
    return row;
  }

  private async checkUrl(raw: string): Promise<string> {
    const field = 'body.url';
    if (raw.length > MAX_URL_LENGTH)
      throw new InvalidFieldError(field, `must NOT have more than ${MAX_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new InvalidFieldError(field, 'must be an absolute http or https URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new InvalidFieldError(field, 'must be an absolute http or https URL');
    }
    if (url.username !== '' || url.password !== '') {
      throw new InvalidFieldError(field, 'must not carry credentials (user:password@)');
    }
    if (url.hash !== '') throw new InvalidFieldError(field, 'must not have a fragment');
    if (!this.options.allowPrivate) {
      const refusal = await refusalOf(hostOf(url), this.options.resolver);
      if (refusal !== null) throw new InvalidFieldError(field, refusal);
    }
    return url.href;
  }
}

/**
 * Whether a key of `scope` may see a webhook of that stored version scope: only when the webhook
 * reaches no version the key cannot see, since its deliveries tell of changes in every version it
 * reaches.
 */
function reachable(scope: Scope, stored: string | null): boolean {
  if (scope.versions === null) return true;
  const versions = webhookVersions(stored);
  return versions !== null && versions.every((id) => canSeeVersion(scope, id));
}

function checkEvents(events: readonly string[]): Array<(typeof WEBHOOK_EVENT_TYPES)[number]> {
  const field = 'body.events';
  if (events.length === 0) throw new InvalidFieldError(field, 'must NOT have fewer than 1 items');
  const known = WEBHOOK_EVENT_TYPES as readonly string[];
  const unknown = events.find((e) => !known.includes(e));
  if (unknown !== undefined) throw new InvalidFieldError(field, `has an unknown event type '${unknown}'`);
  if (new Set(events).size !== events.length)
    throw new InvalidFieldError(field, 'must not repeat an event type');
  return events as Array<(typeof WEBHOOK_EVENT_TYPES)[number]>;
}
