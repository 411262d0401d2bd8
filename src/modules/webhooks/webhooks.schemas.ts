import { listEnvelope } from '../../http/list-envelope.ts';
import { Type, type Static } from '@sinclair/typebox';

/** The event types a webhook may receive (extensions §5), in the order the documentation lists them. */
export const WEBHOOK_EVENT_TYPES = [
  'page.created',
  'page.updated',
  'page.published',
  'page.deleted',
  'version.created',
  'version.updated',
  'version.cloned',
  'version.deleted',
  'reference.updated',
  'reference.published',
  'reader_access.granted',
  'reader_access.revoked',
  'changelog_post.created',
  'import.completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;
export const DELIVERIES_PER_ANSWER = 50;

// An enum rather than a union of literals: a wrong value is then one short error, not fourteen.
const EventType = Type.Unsafe<WebhookEventType>({
  type: 'string',
  enum: [...WEBHOOK_EVENT_TYPES],
  description: 'An event type',
});

export const WebhookSchema = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String({ description: 'Where deliveries are POSTed' }),
    events: Type.Array(EventType, { description: 'The event types it receives' }),
    description: Type.Union([Type.String(), Type.Null()]),
    created: Type.String({ description: 'Date of creation, e.g. 2026-11-21T10:15:00+0000' }),
    versions: Type.Union([Type.Array(Type.Integer()), Type.Null()], {
      description:
        'The versions whose events it receives: those of the API key that registered it; null for every version',
    }),
  },
  { title: 'Webhook' },
);

export const CreatedWebhookSchema = Type.Object(
  {
    ...WebhookSchema.properties,
    secret: Type.String({
      description:
        'The signing secret (whsec_…), shown in this answer only: verify webhook-signature with it',
    }),
  },
  { title: 'CreatedWebhook' },
);

export const WebhookCreateBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: MAX_URL_LENGTH,
      description:
        'An absolute http(s) URL without credentials; its host must not resolve to a loopback, private, ' +
        'link-local or metadata address',
    }),
    events: Type.Array(EventType, {
      minItems: 1,
      maxItems: WEBHOOK_EVENT_TYPES.length,
      uniqueItems: true,
      description: 'The event types to receive, each once',
    }),
    description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH })),
  },
  { title: 'WebhookCreate', additionalProperties: false },
);
export type WebhookCreateInput = Static<typeof WebhookCreateBody>;

export const WebhookListQuery = Type.Object({
  hits: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 100, description: 'Webhooks per page' }),
  ),
  cursor: Type.Optional(
    Type.String({ maxLength: 200, description: 'The cursor of the previous answer, for the next webhooks' }),
  ),
});
export type WebhookListInput = Static<typeof WebhookListQuery>;

export const WebhookListSchema = listEnvelope(WebhookSchema, { title: 'WebhookList' });
export type WebhookList = Static<typeof WebhookListSchema>;

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(
  schema: T,
  description: string,
) => Type.Union([schema, Type.Null()], { description });

export const AttemptSchema = Type.Object(
  {
    started: Type.String(),
    statusCode: Nullable(Type.Integer(), 'The HTTP status answered; null when none came'),
    durationMs: Type.Integer(),
    error: Nullable(Type.String(), 'Why the attempt failed; null when it succeeded'),
  },
  { title: 'WebhookAttempt' },
);

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'The message id (webhook-id header), the same on every attempt' }),
    type: EventType,
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer({ description: 'Attempts made so far' }),
    lastStatusCode: Nullable(Type.Integer(), 'The status of the last attempt'),
    durationMs: Nullable(Type.Integer(), 'How long the last attempt took'),
    error: Nullable(Type.String(), 'Why the last attempt failed'),
    created: Type.String(),
    nextAttemptAt: Nullable(Type.String(), 'When it is tried next; null once delivered or failed'),
    deliveredAt: Nullable(Type.String(), 'When a receiver answered 2xx'),
    log: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first' }),
  },
  { title: 'WebhookDelivery' },
);

export const DeliveryListQuery = Type.Object({
  cursor: Type.Optional(
    Type.String({ maxLength: 200, description: 'The cursor of the previous answer, for older deliveries' }),
  ),
});
export type DeliveryListInput = Static<typeof DeliveryListQuery>;

export const DeliveryListSchema = listEnvelope(DeliverySchema, { title: 'WebhookDeliveryList' });
export type DeliveryList = Static<typeof DeliveryListSchema>;
