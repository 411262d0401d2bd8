import type { Generated } from 'kysely';

// The webhooks' row types (extensions §5), part of src/db/schema.ts's Database.

/** A project's webhook (extensions §5); deleted ones stay, their pending deliveries marked failed. */
export interface WebhooksTable {
  id: Generated<number>;
  project_id: number;
  url: string;
  /** JSON array of the event types it receives */
  events: string;
  description: string | null;
  /** the signing secret, AES-256-GCM encrypted (webhook-secrets.ts) */
  secret: string;
  created: string;
  deleted_at: string | null;
  /** the registering key's version scope, JSON array of version ids; null for every version */
  versions: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** The outbox: one row per webhook and event, written in the change's transaction. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  /** `msg_…`, the webhook-id header: the same on every attempt, receivers dedupe on it */
  message_id: string;
  event_type: string;
  /** deliveries of one webhook and resource are sent in order */
  resource_key: string;
  /** the exact body sent */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  /** a dispatcher's lease: nobody else sends it before this date */
  claimed_until: string | null;
  claim_token: string | null;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  created: string;
  /** when it was delivered, or given up */
  completed_at: string | null;
}

/** One attempt at a delivery, for the deliveries log. */
export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempt: number;
  started: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** A project's webhooks counter (migrations/0018-webhook-stamps.ts): moves only with its webhooks; no row: 0. */
export interface WebhookStampsTable {
  project_id: number;
  /** bigint: a string on PostgreSQL, a number on SQLite */
  stamp: string | number;
}
