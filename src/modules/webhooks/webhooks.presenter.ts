import type { Static } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from '../../db/schema.ts';
import { formatApiDate } from '../../shared/dates.ts';
import type { DeliveryList, WebhookEventType, WebhookSchema } from './webhooks.schemas.ts';

export type Webhook = Static<typeof WebhookSchema>;

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** A webhook as the API shows it: never its secret. */
export function presentWebhook(
  row: Pick<WebhookRow, 'id' | 'url' | 'events' | 'description' | 'created' | 'versions'>,
): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventType[],
    description: row.description,
    created: formatApiDate(row.created),
    versions: webhookVersions(row.versions),
  };
}

/** The stored version scope of a webhook: null for every version. */
export const webhookVersions = (stored: string | null): number[] | null =>
  stored === null ? null : (JSON.parse(stored) as number[]);

export function presentDelivery(
  row: DeliveryRow,
  attempts: readonly AttemptRow[],
): DeliveryList['data'][number] {
  return {
    id: row.message_id,
    type: row.event_type as WebhookEventType,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    durationMs: row.last_duration_ms,
    error: row.last_error,
    created: formatApiDate(row.created),
    nextAttemptAt: row.status === 'pending' ? formatApiDate(row.next_attempt_at) : null,
    deliveredAt: row.status === 'delivered' ? formatApiDate(row.completed_at) : null,
    log: attempts.map((a) => ({
      started: formatApiDate(a.started),
      statusCode: a.status_code,
      durationMs: a.duration_ms,
      error: a.error,
    })),
  };
}
