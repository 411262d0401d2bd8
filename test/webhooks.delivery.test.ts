import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { RETRY_DELAYS_MS } from '../src/modules/webhooks/webhooks.dispatcher.ts';
import { WEBHOOK_EVENT_TYPES } from '../src/modules/webhooks/webhooks.schemas.ts';
import { adminContext, createWorld } from './helpers/factories.ts';
import { multipart, openapiJson, upload } from './helpers/references.ts';
import { buildTestApp, client, dialectName, useTestApp, type TestApp } from './helpers/test-app.ts';
import { startReceiver, verifyWebhook, type Receiver } from './helpers/webhook-receiver.ts';

const ENV: Record<string, string> = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_TIMEOUT: '300',
  ...(dialectName === 'postgres' ? { WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') } : {}),
};
const t = useTestApp({ env: ENV });
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function setUp(app: TestApp, events: readonly string[] = ['page.created', 'page.updated']) {
  const w = await createWorld(app.deps);
  const receiver = await startReceiver();
  receivers.push(receiver);
  const api = client(app.app, w.key);
  const res = await api.post('/webhooks', { url: receiver.url(), events });
  expect(res.statusCode, res.body).toBe(201);
  const { id, secret } = res.json<{ id: number; secret: string }>();
  const deliveries = async () =>
    (await api.get(`/webhooks/${id}/deliveries`)).json<{ items: Array<Record<string, unknown>> }>().items;
  const page = async (title: string) =>
    (await api.post(`/documentation/${w.documentation.id}/page`, { title, content: 'x' })).json<{
      id: number;
    }>();
  return { w, api, receiver, id, secret, deliveries, page };
}

const payloadOf = (body: string) =>
  JSON.parse(body) as { type: string; timestamp: string; data: { id?: number } };

describe('webhook deliveries', () => {
  it('delivers each of the 14 event types, signed, with the resource as the API returns it', async () => {
    const { w, api, receiver, secret } = await setUp(t, WEBHOOK_EVENT_TYPES);
    const expected = new Map<string, unknown>();
    const page = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Hello',
      content: 'Hi',
    });
    expected.set('page.created', page.json());
    const pageId = page.json<{ id: number }>().id;
    expected.set('page.updated', (await api.put(`/page/${pageId}`, { content: 'Hi there' })).json());
    expected.set('page.published', (await api.put(`/page/${pageId}/publish`)).json());
    const version = await api.post('/version', { name: 'v2', slug: 'v2', published: false });
    expected.set('version.created', version.json());
    const versionId = version.json<{ id: number }>().id;
    expected.set('version.updated', (await api.put(`/version/${versionId}`, { name: 'Two' })).json());
    const clone = await api.post(`/version/${w.version.id}/clone`, { name: 'v3' });
    expected.set('version.cloned', clone.json());
    expect((await api.delete(`/version/${versionId}`)).statusCode).toBe(200);
    expected.set('version.deleted', { id: versionId });
    const reference = await upload(t.app, w.key, w.version.id, openapiJson('Pets'), { publish: false });
    expected.set('reference.updated', reference.json());
    const referenceId = reference.json<{ id: number }>().id;
    expected.set('reference.published', (await api.put(`/reference/${referenceId}/publish`)).json());
    expected.set(
      'reader_access.granted',
      (await api.post('/reader-access', { email: 'r@example.com' })).json(),
    );
    expected.set(
      'reader_access.revoked',
      (await api.patch('/reader-access', { email: 'r@example.com' })).json(),
    );
    const changelog = await t.deps.changelogs.create(
      await adminContext(t.deps, { projectId: w.project.id }),
      {
        title: 'News',
      },
    );
    expected.set(
      'changelog_post.created',
      (await api.post(`/changelog/${changelog.id}/post`, { title: 'N', content: 'x' })).json(),
    );
    const zip = (await api.get('/export?version_slug=v1')).rawPayload;
    const imported = await api.post(
      '/import',
      undefined,
      await multipart([{ name: 'file', content: zip, filename: 'e.zip', type: 'application/zip' }]),
    );
    expect(imported.statusCode, imported.body).toBe(201);
    expected.set('import.completed', imported.json());
    expect((await api.delete(`/page/${pageId}`)).statusCode).toBe(200);
    expected.set('page.deleted', { id: pageId });

    await t.deps.webhookDispatcher.drain();
    const now = Math.floor(t.clock.now() / 1000);
    const byType = new Map<string, unknown[]>();
    for (const request of receiver.received) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['webhook-id']).toMatch(/^msg_/);
      const payload = verifyWebhook(secret, request.headers, request.body, now);
      expect(payload.timestamp).toBe('2026-11-21T10:15:00+0000');
      byType.set(payload.type, [...(byType.get(payload.type) ?? []), payload.data]);
    }
    expect([...byType.keys()].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const [type, data] of expected) {
      const sent = byType.get(type)!;
      // The import's own pages and versions are sent too: the first of a type is the one made here.
      if (type === 'version.deleted' || type === 'page.deleted')
        expect(sent[0], type).toMatchObject(data as object);
      else expect(sent[0], type).toEqual(data);
    }
    // A forged body fails verification.
    const first = receiver.received[0]!;
    expect(() => verifyWebhook(secret, first.headers, first.body.replace('Hello', 'Hullo'), now)).toThrow(
      /signature/,
    );
    expect(() => verifyWebhook(secret, first.headers, first.body, now + 3600)).toThrow(/tolerance/);
  });

  it('retries a receiver answering 500 after 5 s, 1 min, 10 min, 1 h, 6 h and 24 h, then gives up', async () => {
    const { receiver, page, deliveries } = await setUp(t);
    receiver.respond = () => 500;
    await page('Retried');
    expect(await t.deps.webhookDispatcher.drain()).toBe(1);
    for (const delay of RETRY_DELAYS_MS) {
      t.clock.advance(delay - 1_000);
      expect(await t.deps.webhookDispatcher.drain(), `before ${delay}`).toBe(0);
      t.clock.advance(1_000);
      expect(await t.deps.webhookDispatcher.drain(), `after ${delay}`).toBe(1);
    }
    t.clock.advance(7 * 24 * 3_600_000);
    expect(await t.deps.webhookDispatcher.drain()).toBe(0);
    expect(receiver.received).toHaveLength(7);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({
      status: 'failed',
      attempts: 7,
      lastStatusCode: 500,
      error: 'answered 500',
    });
    expect(delivery!.nextAttemptAt).toBeNull();
    expect(delivery!.deliveredAt).toBeNull();
    const log = delivery!.log as Array<{
      statusCode: number;
      durationMs: number;
      error: string;
      started: string;
    }>;
    expect(log.map((a) => a.statusCode)).toEqual([500, 500, 500, 500, 500, 500, 500]);
    expect(log.every((a) => a.durationMs >= 0 && a.error === 'answered 500')).toBe(true);
    expect(log[1]!.started).toBe('2026-11-21T10:15:05+0000');
  });

  it('retries after a timeout and after a redirect, and records the delivery', async () => {
    const { receiver, page, deliveries } = await setUp(t);
    receiver.respond = (_r, index) => (index === 0 ? 'hang' : index === 1 ? 302 : 200);
    await page('Slow');
    await t.deps.webhookDispatcher.drain();
    let [delivery] = await deliveries();
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      error: 'no answer within 300 ms',
    });
    expect(delivery!.durationMs).toBeGreaterThanOrEqual(250);
    expect(delivery!.nextAttemptAt).toBe('2026-11-21T10:15:05+0000');
    t.clock.advance(5_000);
    await t.deps.webhookDispatcher.drain();
    [delivery] = await deliveries();
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 2,
      lastStatusCode: 302,
      error: 'answered 302',
    });
    t.clock.advance(60_000);
    await t.deps.webhookDispatcher.drain();
    [delivery] = await deliveries();
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200, error: null });
    expect(delivery!.deliveredAt).toBe('2026-11-21T10:16:05+0000');
    expect((delivery!.log as unknown[]).length).toBe(3);
  });

  it('keeps order per resource: a failing delivery holds back later ones of its page, not another page', async () => {
    const { api, receiver, page } = await setUp(t);
    const a = await page('A');
    await api.put(`/page/${a.id}`, { content: 'A, updated' });
    receiver.respond = (request) => (payloadOf(request.body).data.id === a.id ? 500 : 204);
    const b = await page('B');
    await t.deps.webhookDispatcher.drain();
    const seen = () => receiver.received.map((r) => `${payloadOf(r.body).type} ${payloadOf(r.body).data.id}`);
    expect(seen()).toEqual([`page.created ${a.id}`, `page.created ${b.id}`]);
    receiver.respond = () => 204;
    t.clock.advance(5_000);
    await t.deps.webhookDispatcher.drain();
    expect(seen().slice(2)).toEqual([`page.created ${a.id}`, `page.updated ${a.id}`]);
  });

  it('delivers after a restart in the middle of the retries, signed with the same secret', async () => {
    const first = await buildTestApp({ env: ENV });
    const { receiver, page, secret } = await setUp(first);
    receiver.respond = (_r, index) => (index === 0 ? 503 : 204);
    await page('Restarted');
    await first.deps.webhookDispatcher.drain();
    await first.close();
    const second = await buildTestApp({ env: ENV, sharedWith: first });
    try {
      second.clock.advance(5_000);
      expect(await second.deps.webhookDispatcher.drain()).toBe(1);
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
      const now = Math.floor(second.clock.now() / 1000);
      expect(verifyWebhook(secret, receiver.received[1]!.headers, receiver.received[1]!.body, now).type).toBe(
        'page.created',
      );
    } finally {
      await second.close();
    }
  });
});
