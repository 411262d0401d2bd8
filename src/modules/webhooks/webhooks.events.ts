import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { DatabaseHandle, DialectName } from '../../db/dialect.ts';
import type { Database } from '../../db/schema.ts';
import type { ChangeEvent, ChangeSubscriber } from '../changes/change-events.ts';
import { eventVersions, withinVersions } from '../changes/event-versions.ts';
import { formatApiDate, toStoredDate } from '../../shared/dates.ts';
import { webhooksRepository as repo } from './webhooks.repository.ts';
import type { WebhookEventType } from './webhooks.schemas.ts';

/** What a change sends: its webhook event type, the resource whose deliveries keep their order, the data. */
interface Outgoing {
  type: WebhookEventType;
  resource: string;
  data: unknown;
}

export const newMessageId = (): string => `msg_${randomBytes(18).toString('base64url')}`;

/**
 * The webhook event of a change, or null when webhooks are not told about it. The switch is
 * exhaustive: a new kind of change does not compile until it says whether it is sent.
 */
export function outgoing(event: ChangeEvent): Outgoing | null {
  switch (event.type) {
    case 'page.created':
    case 'page.updated':
    case 'page.published':
    case 'page.deleted':
      return { type: event.type, resource: `page:${event.page.id}`, data: event.page };
    case 'version.created':
    case 'version.updated':
    case 'version.cloned':
    case 'version.deleted':
      return { type: event.type, resource: `version:${event.version.id}`, data: event.version };
    case 'reference.uploaded':
      return {
        type: 'reference.updated',
        resource: `reference:${event.reference.id}`,
        data: event.reference,
      };
    case 'reference.published':
      return { type: event.type, resource: `reference:${event.reference.id}`, data: event.reference };
    case 'reader_access.granted':
    case 'reader_access.revoked':
      return { type: event.type, resource: `reader_access:${event.accessId}`, data: event.access };
    case 'changelog_post.created':
      return { type: event.type, resource: `changelog_post:${event.post.id}`, data: event.post };
    case 'import.completed':
      // Every import is a resource of its own: nothing orders two imports' reports.
      return { type: event.type, resource: `import:${newMessageId()}`, data: event.report };
    case 'project.created':
    case 'project.updated':
    case 'api_key.created':
    case 'api_key.revoked':
    case 'user.created':
    case 'documentation.created':
    case 'documentation.updated':
    case 'documentation.deleted':
    case 'category.created':
    case 'page.restored':
    case 'changelog.created':
    case 'webhook.created':
    case 'webhook.deleted':
      return null;
    default: {
      const unknown: never = event;
      throw new Error(`No webhook rule for ${(unknown as { type: string }).type}`);
    }
  }
}

/** A live webhook of a project, with the event types and the versions (null: all) it receives. */
interface Subscription {
  id: number;
  events: ReadonlySet<string>;
  versions: ReadonlySet<number> | null;
}

/** Projects whose webhooks are kept at once; past it the cache starts over. */
const CACHED_PROJECTS = 10_000;

/** A project's live webhooks, and the project's webhook stamp they were read under. */
interface Kept {
  stamp: string;
  hooks: Subscription[];
}

/**
 * Each project's live webhooks, for the outbox on SQLite (PostgreSQL's finds them in the statement
 * that writes the deliveries: see webhooksSubscriber). They are kept under the project's webhook
 * stamp, a counter that triggers move on every write to the project's webhooks, whoever makes it (this
 * app, another one in this process, another process: migrations/0018-webhook-stamps.ts). Each change
 * reads the counter in its own transaction, a point read on the writer connection, and is served what
 * is kept while it is the same; the webhooks are read again, in the same transaction and so the same
 * state of the database, only when it has moved. Writes to anything else, and other projects'
 * webhooks, keep them.
 *
 * A transaction that created or deleted a webhook (its change event says so) reads them itself and
 * keeps nothing: the counter it sees moved in it, and should it roll back, a later commit could bring
 * the counter to that same number over other webhooks.
 */
export class WebhookSubscriptions {
  private readonly kept = new Map<number, Kept>();
  private readonly touched = new WeakSet<Transaction<Database>>();
  private readonly stamp: ((projectId: number) => string) | null;
  private readonly lookups = { hits: 0, misses: 0 };
  /** PostgreSQL's outbox finds the webhooks in the statement that writes the deliveries instead */
  readonly dialect: DialectName;

  constructor(database: DatabaseHandle) {
    this.dialect = database.dialect;
    const writer = database.sqlite;
    this.stamp = writer === null ? null : repo.webhookStamp(writer);
  }

  /** The project's live webhooks as `trx` sees them. On SQLite only, where `trx` is the writer's. */
  async of(trx: Transaction<Database>, projectId: number): Promise<Subscription[]> {
    if (this.stamp === null || this.touched.has(trx)) {
      this.lookups.misses += 1;
      return read(trx, projectId);
    }
    const stamp = this.stamp(projectId);
    const kept = this.kept.get(projectId);
    if (kept !== undefined && kept.stamp === stamp) {
      this.lookups.hits += 1;
      return kept.hooks;
    }
    this.lookups.misses += 1;
    const hooks = await read(trx, projectId);
    if (!this.touched.has(trx)) {
      if (kept === undefined && this.kept.size >= CACHED_PROJECTS) this.kept.clear();
      this.kept.set(projectId, { stamp, hooks });
    }
    return hooks;
  }

  /** A webhook of the project was created or deleted in `trx`. */
  changed(trx: Transaction<Database>): void {
    this.touched.add(trx);
  }

  /** Lookups served from what was kept, and those that read the webhooks (metrics). */
  stats(): { hits: number; misses: number } {
    return { ...this.lookups };
  }
}

async function read(trx: Transaction<Database>, projectId: number): Promise<Subscription[]> {
  const rows = await repo.subscriptions(trx, projectId);
  return rows.map((row) => ({
    id: row.id,
    events: new Set(JSON.parse(row.events) as string[]),
    versions: row.versions === null ? null : new Set(JSON.parse(row.versions) as number[]),
  }));
}

/**
 * The outbox: in the change's transaction, one delivery per live webhook of the project that receives
 * the change's event type and may see every version it names (a webhook keeps the version scope of
 * the key that registered it: decision 0019), queued with the change's other writes. On PostgreSQL one statement finds
 * the webhooks and writes the deliveries, sent with the change's other writes (its audit entry…), so a
 * change costs no round trip of its own here; it runs after the change's own statements, as the read
 * it replaces did, so a webhook committed before then gets the delivery. On SQLite the webhooks are
 * kept (WebhookSubscriptions): a change costs one point read of its project's webhook stamp, and
 * they are read again only when it has moved. When rows were written, `written` is told the
 * transaction: the dispatcher is nudged once it has committed, never before.
 */
export function webhooksSubscriber(
  written: (trx: Transaction<Database>) => void,
  subscriptions: WebhookSubscriptions,
): ChangeSubscriber {
  return async (trx, { event, at }, writes) => {
    const told = (rows: number) => {
      if (rows > 0) written(trx);
    };
    if (event.type === 'webhook.created' || event.type === 'webhook.deleted') {
      subscriptions.changed(trx);
    }
    const message = outgoing(event);
    if (message === null) return;
    const versions = eventVersions(event);
    const created = toStoredDate(at);
    // The payload holds the whole resource (a page's contents): on SQLite it is made only for a
    // project with a webhook that receives it, where it cost every other write 2% of its time.
    const payload = () =>
      JSON.stringify({ type: message.type, timestamp: formatApiDate(created), data: message.data });
    if (subscriptions.dialect === 'postgres') {
      const delivery = {
        randomHex: randomBytes(14).toString('hex'),
        eventType: message.type,
        resourceKey: message.resource,
        payload: payload(),
        created,
        versions,
      };
      writes.add(repo.deliveriesToSubscribers(trx, event.projectId, delivery), told);
      return;
    }
    const hooks = await subscriptions.of(trx, event.projectId);
    const targets = hooks.filter(
      (hook) => hook.events.has(message.type) && withinVersions(hook.versions, versions),
    );
    if (targets.length === 0) return;
    const body = payload();
    writes.add(
      repo.deliveryInsertion(
        trx,
        targets.map((hook) => ({
          webhook_id: hook.id,
          message_id: newMessageId(),
          event_type: message.type,
          resource_key: message.resource,
          payload: body,
          status: 'pending' as const,
          attempts: 0,
          next_attempt_at: created,
          created,
        })),
      ),
      told,
    );
  };
}
