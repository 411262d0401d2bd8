import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { multipart, openapiJson } from './helpers/references.ts';
import { buildTestApp, client, dialectName, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

const pagesOf = async (key: string) =>
  Object.values(
    (await client(t.app, key).get('/all')).json<{ page: Record<string, { title: string }> }>().page,
  );

describe('Idempotency-Key', () => {
  it('replays the first answer byte for byte, and makes the change once', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const headers = { 'idempotency-key': 'create-intro-1' };
    const body = { title: 'Intro', content: 'x' };
    const first = await api.post(`/documentation/${w.documentation.id}/page`, body, { headers });
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await api.post(`/documentation/${w.documentation.id}/page`, body, { headers });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect((await pagesOf(w.key)).map((p) => p.title)).toEqual(['Intro']);

    // Another key, or none, is another request.
    expect((await api.post(`/documentation/${w.documentation.id}/page`, body)).statusCode).toBe(200);
    expect(await pagesOf(w.key)).toHaveLength(2);
  });

  it('answers 422 for the same key with another request, and replays answers that were errors', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const headers = { 'idempotency-key': 'k' };
    await api.post(`/documentation/${w.documentation.id}/page`, { title: 'A', content: 'x' }, { headers });
    const other = await api.post(
      `/documentation/${w.documentation.id}/page`,
      { title: 'B', content: 'x' },
      { headers },
    );
    expect(other.statusCode).toBe(422);
    expect(expectErrorShape(other).message).toMatch(/another request/);
    const path = await api.post(`/documentation/999999/page`, { title: 'A', content: 'x' }, { headers });
    expect(path.statusCode).toBe(422);

    const missing = { 'idempotency-key': 'missing-page' };
    const notFound = await api.put('/page/999999', { title: 'x' }, { headers: missing });
    expect(notFound.statusCode).toBe(404);
    const replayed = await api.put('/page/999999', { title: 'x' }, { headers: missing });
    expect(replayed.statusCode).toBe(404);
    expect(replayed.headers['idempotent-replayed']).toBe('true');

    expect(
      (await api.put('/page/1', { title: 'x' }, { headers: { 'idempotency-key': '' } })).statusCode,
    ).toBe(400);
    expect(
      (await api.put('/page/1', { title: 'x' }, { headers: { 'idempotency-key': 'é' } })).statusCode,
    ).toBe(400);
    // A multipart upload: the fingerprint covers its bytes, and the file still reaches the upload.
    const form = await multipart([{ name: 'file', content: openapiJson('Cats'), filename: 'o.json' }]);
    const send = () =>
      api.post(`/version/${w.version.id}/reference`, undefined, {
        ...form,
        headers: { ...form.headers, 'idempotency-key': 'upload' },
      });
    const uploaded = await send();
    expect(uploaded.statusCode).toBe(201);
    expect(uploaded.json()).toMatchObject({ title: 'Cats' });
    const again = await send();
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([
      201,
      'true',
      uploaded.body,
    ]);
    const raw = { 'content-type': 'application/json', 'idempotency-key': 'upload-raw' };
    const first = await api.post(`/version/${w.version.id}/reference`, undefined, {
      payload: openapiJson('Pets'),
      headers: raw,
    });
    const second = await api.post(`/version/${w.version.id}/reference`, undefined, {
      payload: openapiJson('Pets'),
      headers: raw,
    });
    expect([first.statusCode, second.statusCode, second.headers['idempotent-replayed']]).toEqual([
      201,
      201,
      'true',
    ]);
  });

  it('creates exactly one page from concurrent identical requests; the others wait their turn (409) or replay', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const headers = { 'idempotency-key': 'burst' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.post(`/documentation/${w.documentation.id}/page`, { title: 'Once', content: 'x' }, { headers }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(await pagesOf(w.key)).toHaveLength(1);
  });

  it('holds across two instances on one database', async () => {
    const other = await buildTestApp({ sharedWith: t });
    try {
      const w = await createWorld(t.deps);
      const headers = { 'idempotency-key': 'two-instances' };
      const body = { title: 'Shared', content: 'x' };
      const [a, b] = await Promise.all([
        client(t.app, w.key).post(`/documentation/${w.documentation.id}/page`, body, { headers }),
        client(other.app, w.key).post(`/documentation/${w.documentation.id}/page`, body, { headers }),
      ]);
      expect([a.statusCode, b.statusCode].sort()).toEqual(expect.arrayContaining([200]));
      expect([a.statusCode, b.statusCode].every((s) => s === 200 || s === 409)).toBe(true);
      expect(await pagesOf(w.key)).toHaveLength(1);
      const later = await client(other.app, w.key).post(`/documentation/${w.documentation.id}/page`, body, {
        headers,
      });
      expect(later.headers['idempotent-replayed']).toBe('true');
    } finally {
      await other.close();
    }
  });

  it('replays a create whose first answer the client never read', async () => {
    const w = await createWorld(t.deps);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const payload = JSON.stringify({ title: 'Lost answer', content: 'x' });
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/api/v1/documentation/${w.documentation.id}/page`,
      headers: {
        'x-api-key': w.key,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
        'idempotency-key': 'lost',
      },
    });
    request.on('error', () => undefined);
    request.end(payload);
    // The client goes away as soon as the request is sent, before any answer.
    await once(request, 'finish');
    request.destroy();

    const api = client(t.app, w.key);
    const retry = async () =>
      api.post(`/documentation/${w.documentation.id}/page`, JSON.parse(payload) as object, {
        headers: { 'idempotency-key': 'lost' },
      });
    // A retry is answered 409 while a request of the key runs: the lost one, whenever the server
    // reaches it (it may come after a retry, which then runs in its place), or a replay under way.
    const replayed = async () => {
      const res = await retry();
      return [res.statusCode, res.headers['idempotent-replayed']];
    };
    await expect.poll(replayed, { timeout: 10_000 }).toEqual([200, 'true']);
    expect((await pagesOf(w.key)).map((p) => p.title)).toEqual(['Lost answer']);
  });

  it('ends its transaction when the answer cannot be kept', async () => {
    // A refused webhook's answer is kept sealed, and PostgreSQL has no key to seal it with unless
    // WEBHOOK_SECRET_KEY is set (the test app sets none): the refusal is sent all the same, not kept,
    // and the run ends.
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const headers = { 'idempotency-key': 'private-hook' };
    const body = { url: 'http://127.0.0.1:9/hook', events: ['page.created'] };
    const first = await api.post('/webhooks', body, { headers });
    expect(first.statusCode, first.body).toBe(400);
    // Not held at 409 by a transaction left open, and writes go on.
    const again = await api.post('/webhooks', body, { headers });
    expect(again.statusCode).toBe(400);
    expect(again.body).toBe(first.body);
    const after = await api.post(
      `/documentation/${w.documentation.id}/page`,
      { title: 'After', content: 'x' },
      { headers: { 'idempotency-key': 'after' } },
    );
    expect(after.statusCode).toBe(200);
  });

  it.runIf(dialectName === 'sqlite')(
    'takes over at once a claim left by an earlier process that had the same pid',
    async () => {
      const w = await createWorld(t.deps);
      const api = client(t.app, w.key);
      const { id: keyId } = await t.deps.database.db
        .selectFrom('api_keys')
        .select('id')
        .where('project_id', '=', w.project.id)
        .executeTakeFirstOrThrow();
      // What a process killed mid-request leaves: a claim without an answer, its holder this pid
      // (a container's node restarted as pid 1 again) and an instance that no longer exists.
      await t.deps.database.db
        .insertInto('idempotency_keys')
        .values({
          api_key_id: keyId,
          idempotency_key: 'restarted',
          fingerprint: 'of the killed request',
          created: new Date(t.clock.now()).toISOString(),
          holder: `${process.pid}:an-instance-of-the-process-before`,
        })
        .execute();
      const retry = await api.post(
        `/documentation/${w.documentation.id}/page`,
        { title: 'Restarted', content: 'x' },
        { headers: { 'idempotency-key': 'restarted' } },
      );
      expect(retry.statusCode).toBe(200);
    },
  );

  it('forgets keys after 24 hours', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const headers = { 'idempotency-key': 'daily' };
    await api.post(`/documentation/${w.documentation.id}/page`, { title: 'A', content: 'x' }, { headers });
    t.clock.advance(24 * 60 * 60 * 1000 + 1);
    expect(await t.deps.idempotency.purge()).toBe(1);
    const fresh = await api.post(
      `/documentation/${w.documentation.id}/page`,
      { title: 'B', content: 'x' },
      { headers },
    );
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
  });
});
