import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses, IdParam } from '../../http/schemas.ts';
import { EmptyObject } from '../versions/versions.schemas.ts';
import {
  CreatedWebhookSchema,
  DeliveryListQuery,
  DeliveryListSchema,
  WebhookCreateBody,
  WebhookListQuery,
  WebhookListSchema,
} from './webhooks.schemas.ts';
import type { WebhooksService } from './webhooks.service.ts';

/** Webhooks over HTTP (extensions §5). */
export const webhooksRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (
  app,
  { webhooks },
) => {
  app.post(
    '/webhooks',
    {
      config: { operation: 'createWebhook', permission: 'webhook.write', body: 'json', secretAnswer: true },
      schema: {
        operationId: 'createWebhook',
        summary: 'Register a webhook: the project’s changes of the chosen types are POSTed to the URL',
        description:
          'Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) ' +
          'with the secret of this answer, which is never shown again. The URL must be absolute http(s), ' +
          'without credentials, and must not lead to a loopback, private, link-local or metadata address. ' +
          'On PostgreSQL without WEBHOOK_SECRET_KEY configured the answer is 503.',
        tags: ['webhooks'],
        body: WebhookCreateBody,
        response: {
          201: { ...CreatedWebhookSchema, description: 'The webhook, with its secret (shown once)' },
          ...errorResponses(413, 415),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await webhooks.create(contextOf(request), request.body)),
  );

  app.get(
    '/webhooks',
    {
      config: { operation: 'listWebhooks', permission: 'webhook.read' },
      schema: {
        operationId: 'listWebhooks',
        summary: 'The project’s webhooks, oldest first, without their secrets',
        description:
          'The webhooks of the project with the event types they receive, `hits` at a time (100 by default); ' +
          'pass the returned cursor back for the next ones. Secrets are shown only when a webhook is ' +
          'created. `items` repeats `data`, as this list answered first (deprecated).',
        tags: ['webhooks'],
        querystring: WebhookListQuery,
        response: { 200: { ...WebhookListSchema, description: 'The webhooks' }, ...errorResponses() },
      },
    },
    (request) => webhooks.page(contextOf(request), request.query),
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { operation: 'deleteWebhook', permission: 'webhook.write' },
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook; its deliveries still pending are not sent',
        description: 'Nothing more is sent to it from now on, not even the deliveries still pending.',
        tags: ['webhooks'],
        params: IdParam('id', 'Webhook ID'),
        response: {
          200: { ...EmptyObject, description: 'Deleted: nothing more is sent to it' },
          ...errorResponses(404),
        },
      },
    },
    (request) => webhooks.delete(contextOf(request), request.params.id),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { operation: 'listWebhookDeliveries', permission: 'webhook.read' },
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'A webhook’s deliveries, newest first, each with its attempts',
        description:
          'Fifty at a time; pass the returned cursor back for older ones. A delivery is pending until a ' +
          'receiver answers 2xx (delivered) or its last retry fails (failed). `items` repeats `data`, as ' +
          'this list answered first (deprecated).',
        tags: ['webhooks'],
        params: IdParam('id', 'Webhook ID'),
        querystring: DeliveryListQuery,
        response: {
          200: {
            ...DeliveryListSchema,
            description: 'Deliveries, newest first, and the cursor to older ones',
          },
          ...errorResponses(404),
        },
      },
    },
    (request) => webhooks.deliveries(contextOf(request), request.params.id, request.query),
  );
};
