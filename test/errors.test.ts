import { describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { buildTestApp, client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

describe('error responses', () => {
  it('answers an unknown route with 404 and the error body', async () => {
    const res = await client(t.app).get('/nope');
    expect(res.statusCode).toBe(404);
    expect(expectErrorShape(res).message).toMatch(/not found/i);
  });

  it('reports validation errors with field details', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).put(`/version/${w.version.id}`, { name: 42, published: 'yes' });
    expect(res.statusCode).toBe(400);
    const error = expectErrorShape(res);
    expect(error.details).toEqual(
      expect.arrayContaining([{ field: 'body.name', message: 'must be string' }]),
    );
    const badParam = await client(t.app, w.key).put('/version/abc', { name: 'x' });
    expect(badParam.statusCode).toBe(400);
    expect(expectErrorShape(badParam).details).toEqual([
      { field: 'path.id', message: expect.any(String) as string },
    ]);
  });

  it('answers a malformed URL with 400, the error body and a request id', async () => {
    const res = await client(t.app).get('/page/%ZZ');
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toBe('Malformed URL.');
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('refuses JSON naming __proto__ for what it is', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).put(`/version/${w.version.id}`, '{"__proto__":{"name":"x"}}', {
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).details).toEqual([
      { field: 'body', message: "must not use the property names '__proto__' or 'constructor'" },
    ]);
  });

  it('answers malformed JSON with 400', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).put(`/version/${w.version.id}`, '{"name": ', {
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toBe('Malformed JSON body.');
  });

  it('answers a JSON body over 5 MiB with 413', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).put(`/version/${w.version.id}`, {
      name: 'x'.repeat(5 * 1024 * 1024 + 10),
    });
    expect(res.statusCode).toBe(413);
    expectErrorShape(res);
  });

  it('answers another content type on a JSON operation with 415 and the documented message', async () => {
    const w = await createWorld(t.deps);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await client(t.app, w.key).put(`/version/${w.version.id}`, 'name=x', {
        headers: { 'content-type': type },
      });
      expect(res.statusCode).toBe(415);
      expect(expectErrorShape(res).message).toBe(
        `Unsupported content-type '${type}'. Supported content-type is 'application/json'.`,
      );
    }
    const withCharset = await client(t.app, w.key).put(
      `/version/${w.version.id}`,
      JSON.stringify({ name: 'y' }),
      {
        headers: { 'content-type': 'application/json; charset=utf-8' },
      },
    );
    expect(withCharset.statusCode).toBe(200);
  });

  it('puts an X-Request-Id on every response and echoes a well-formed one', async () => {
    const w = await createWorld(t.deps);
    const ok = await client(t.app, w.key).get('/version');
    expect(ok.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const err = await client(t.app).get('/nope', { headers: { 'x-request-id': 'trace-123' } });
    expect(err.headers['x-request-id']).toBe('trace-123');
    const bad = await client(t.app).get('/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(bad.headers['x-request-id']).not.toBe('bad id with spaces');
  });

  it('masks an unexpected failure as a 500 without internals', async () => {
    const w = await createWorld(t.deps);
    // The one fake in this suite: a service that fails the way a broken database would.
    t.deps.versions.list = () =>
      Promise.reject(new Error('SQLITE_CORRUPT: secret internal detail at /var/lib'));
    const res = await client(t.app, w.key).get('/version');
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('SQLITE');
    expectErrorShape(res);
  });
});

describe('health and description', () => {
  it('serves /healthz and /readyz without a key', async () => {
    expect((await client(t.app).get('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await client(t.app).get('/readyz')).json()).toEqual({ status: 'ready' });
  });

  it('reports not ready when the database is gone', async () => {
    const other = await buildTestApp();
    await other.deps.database.close();
    const res = await client(other.app).get('/readyz');
    expect(res.statusCode).toBe(503);
    await other.app.close();
    await other.deps.counters.close();
  });

  it('serves its own OpenAPI description without a key, generated from the routes', async () => {
    const res = await client(t.app).get('/openapi.json');
    expect(res.statusCode).toBe(200);
    type Operation = {
      operationId?: string;
      responses?: Record<string, { description?: string; headers?: Record<string, unknown> }>;
    };
    const doc = res.json<{ openapi: string; paths: Record<string, Record<string, Operation>> }>();
    expect(doc.openapi).toMatch(/^3\./);
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({
        id: `${method.toUpperCase()} ${path} ${op.operationId}`,
        op,
      })),
    );
    expect(operations.map((o) => o.id).sort()).toEqual(
      [
        'GET /all listAll',
        'GET /structure readStructure',
        'GET /audit readAudit',
        'GET /feedback listFeedback',
        'GET /export exportProject',
        'GET /page getPageBySlug',
        'GET /page/{id} readPage',
        'GET /page/{id}/history listPageHistory',
        'GET /page/{id}/history/{revision} readPageRevision',
        'POST /page/{id}/history/{revision}/restore restorePageRevision',
        'GET /reader-access listReaderAccess',
        'GET /reference/{id}/definition readReferenceDefinition',
        'GET /reference/{id}/changes readReferenceChanges',
        'GET /reference/{id}/history listReferenceRevisions',
        'GET /search searchContent',
        'GET /users listUsers',
        'GET /version listVersions',
        'GET /version/{versionId}/documentation listDocumentation',
        'PATCH /reader-access revokeReaderAccess',
        'POST /documentation/{id}/page createPage',
        'POST /documentation/{id}/category createCategory',
        'PUT /documentation/{id} updateDocumentation',
        'DELETE /documentation/{id} deleteDocumentation',
        'POST /version createVersion',
        'DELETE /version/{id} deleteVersion',
        'POST /version/{versionId}/documentation createDocumentation',
        'POST /import importProject',
        'DELETE /page/{id} deletePage',
        'POST /page/{id}/restore restorePage',
        'POST /version/{id}/clone cloneVersion',
        'GET /version/{id}/report versionReport',
        'GET /version/{id}/broken-links brokenLinks',
        'POST /changelog/{id}/post createChangelogPost',
        'GET /changelog/{id}/post listChangelogPosts',
        'POST /reader-access grantReaderAccess',
        'POST /version/{versionId}/reference uploadReference',
        'PUT /page/{id} updatePage',
        'PUT /page/{id}/publish publishPage',
        'PUT /reference/{id}/publish publishReference',
        'PUT /version/{id} updateVersion',
        'POST /webhooks createWebhook',
        'GET /webhooks listWebhooks',
        'DELETE /webhooks/{id} deleteWebhook',
        'GET /webhooks/{id}/deliveries listWebhookDeliveries',
      ].sort(),
    );
    // Every operation documents its success and the statuses every operation can give.
    for (const { id, op } of operations) {
      const statuses = Object.keys(op.responses ?? {});
      expect(
        statuses.some((s) => s.startsWith('2')),
        id,
      ).toBe(true);
      // 414 and 431 too: a URL or headers too long are refused before any route runs.
      expect(statuses, id).toEqual(expect.arrayContaining(['400', '403', '414', '429', '431', '503']));
      const success = Object.entries(op.responses ?? {}).find(([s]) => s.startsWith('2'))![1];
      expect(Object.keys(success.headers ?? {}), id).toEqual(
        expect.arrayContaining([
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'X-Request-Id',
        ]),
      );
      expect(success.description, id).not.toBe('Default Response');
      expect(Object.keys(op.responses?.['429']?.headers ?? {}), id).toContain('Retry-After');
      expect(Object.keys(op.responses?.['503']?.headers ?? {}), id).toContain('Retry-After');
    }
  });
});
