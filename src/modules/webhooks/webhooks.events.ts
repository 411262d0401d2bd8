import { randomBytes } from 'node:crypto';
import type { ChangeEvent } from '../../events/change-events.ts';
import type { ChangeSubscriber } from '../../events/change-recorder.ts';
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

/**
 * The outbox: in the change's transaction, one delivery per live webhook of the project that receives
 * the change's event type. A change of a project without webhooks costs one indexed read. The
 * dispatcher is told after the rows are written (`written`), so it looks again once they commit.
 */
export function webhooksSubscriber(written: () => void): ChangeSubscriber {
  return async (trx, { event, at }) => {
    const message = outgoing(event);
    if (message === null) return;
    const hooks = await repo.subscriptions(trx, event.projectId);
    const targets = hooks.filter((hook) => (JSON.parse(hook.events) as string[]).includes(message.type));
    if (targets.length === 0) return;
    const created = toStoredDate(at);
    const payload = JSON.stringify({
      type: message.type,
      timestamp: formatApiDate(created),
      data: message.data,
    });
    await repo.insertDeliveries(
      trx,
      targets.map((hook) => ({
        webhook_id: hook.id,
        message_id: newMessageId(),
        event_type: message.type,
        resource_key: message.resource,
        payload,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: created,
        created,
      })),
    );
    written();
  };
}
