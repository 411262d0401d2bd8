import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../src/http/operations.ts';
import { client, useTestApp } from './helpers/test-app.ts';

/**
 * The document /api/v1/openapi.json must be usable by generators as it is (issue 17): named
 * components referenced everywhere, exact parameter and body types, prose and tags on every
 * operation, the permission and rate limit of each, and every status it can answer.
 */
type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema: Json }>;
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<
    string,
    { description?: string; headers?: Json; content?: Record<string, { schema: Json }> }
  >;
  'x-permission'?: string;
  'x-rate-limit'?: { limit: number; windowSeconds: number };
}
interface Document {
  openapi: string;
  info: { contact?: Json; license?: Json; description?: string };
  servers?: Array<{ url: string }>;
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Json>;
    parameters?: Record<string, Json>;
    headers?: Record<string, Json>;
  };
}

/** service-api.md §4, decisions.md §3 and extensions.md: the permission each operation needs. */
const PERMISSIONS: Record<string, string | undefined> = {
  createPage: 'page.edit',
  publishPage: 'page.publish',
  getPageBySlug: 'page.read',
  readPage: 'page.read',
  updatePage: 'page.edit',
  listDocumentation: 'project.read',
  listVersions: 'project.read',
  updateVersion: 'version.publish',
  readReferenceDefinition: 'reference.read',
  readReferenceChanges: 'reference.read',
  listReferenceRevisions: 'reference.read',
  publishReference: 'reference.publish',
  // reference.publish, or reference.edit with publish=false (x-permission-alternatives): the
  // service checks it, not the pipeline.
  uploadReference: 'reference.publish',
  listUsers: 'project.read',
  exportProject: 'project.export',
  listAll: 'project.read',
  readStructure: 'project.read',
  readAudit: 'audit.read',
  listReaderAccess: 'access.read',
  grantReaderAccess: 'access.write',
  revokeReaderAccess: 'access.write',
  searchContent: 'search.read',
  createVersion: 'version.edit',
  deleteVersion: 'version.edit',
  cloneVersion: 'version.edit',
  versionReport: 'project.read',
  brokenLinks: 'project.read',
  createDocumentation: 'documentation.edit',
  updateDocumentation: 'documentation.edit',
  deleteDocumentation: 'documentation.edit',
  createCategory: 'documentation.edit',
  deletePage: 'page.delete',
  restorePage: 'page.delete',
  listPageHistory: 'page.read',
  readPageRevision: 'page.read',
  restorePageRevision: 'page.edit',
  createChangelogPost: 'changelog.edit',
  listChangelogPosts: 'changelog.read',
  importProject: 'project.import',
  createWebhook: 'webhook.write',
  listWebhooks: 'webhook.read',
  deleteWebhook: 'webhook.write',
  listWebhookDeliveries: 'webhook.read',
  listFeedback: 'feedback.read',
};

const t = useTestApp();

async function documentOf(): Promise<Document> {
  const res = await client(t.app).get('/openapi.json');
  expect(res.statusCode).toBe(200);
  return res.json<Document>();
}

function operationsOf(doc: Document) {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
}

/** Every object in `value`, with where it is. */
function* objects(value: unknown, where = '#'): Generator<[string, Json]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* objects(item, `${where}/${i}`);
  } else if (typeof value === 'object' && value !== null) {
    yield [where, value as Json];
    for (const [key, child] of Object.entries(value)) yield* objects(child, `${where}/${key}`);
  }
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const success = (op: Operation) => Object.entries(op.responses).find(([status]) => status.startsWith('2'))!;

describe('the OpenAPI document', () => {
  it('names every resource and the error envelope once, and refers to them everywhere', async () => {
    const doc = await documentOf();
    const schemas = doc.components.schemas;
    for (const name of [
      'Page',
      'Version',
      'Documentation',
      'Reference',
      'User',
      'ReaderAccess',
      'Error',
      'Category',
      'ChangelogPost',
      'ChangelogPostList',
      'Webhook',
      'CreatedWebhook',
      'WebhookDelivery',
      'AuditEntry',
      'AuditList',
      'AllProject',
      'SearchResult',
      'BrokenLink',
      'Revision',
      'VersionReportPage',
      'ImportReport',
    ]) {
      expect(schemas[name], name).toMatchObject({ type: 'object' });
    }
    // No titled schema is left inline in an answer: each is a component, or generators repeat it.
    for (const [where, node] of objects(doc.paths)) {
      if (!where.includes('/responses/')) continue;
      expect(typeof node.title === 'string' ? `${where} (${String(node.title)})` : null).toBeNull();
    }
    // Every reference resolves, and every component is referred to.
    const referred = new Set<string>();
    for (const [where, node] of objects(doc)) {
      // Headers and parameters: checked in the test of header components below.
      if (typeof node.$ref !== 'string' || !node.$ref.startsWith('#/components/schemas/')) continue;
      const name = node.$ref.replace('#/components/schemas/', '');
      expect(schemas[name], `${where} → ${node.$ref}`).toBeDefined();
      referred.add(name);
    }
    expect(Object.keys(schemas).filter((name) => !referred.has(name))).toEqual([]);

    const answer = (path: string, method: string, status: string) =>
      doc.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema;
    expect(answer('/documentation/{id}/page', 'post', '200')).toEqual(ref('Page'));
    expect(answer('/page', 'get', '200')).toEqual(ref('Page'));
    expect(answer('/page/{id}', 'get', '200')).toEqual(ref('Page'));
    expect(answer('/page/{id}', 'put', '200')).toEqual(ref('Page'));
    expect(answer('/page/{id}/publish', 'put', '200')).toEqual(ref('Page'));
    expect(answer('/version', 'get', '200')).toMatchObject({ type: 'array', items: ref('Version') });
    // A Reference, with the change report when the upload replaced a definition (extensions.md §8).
    expect(answer('/version/{versionId}/reference', 'post', '201')).toEqual(ref('UploadedReference'));
    expect(answer('/reference/{id}/changes', 'get', '200')).toEqual(ref('ChangeReport'));
    expect(answer('/users', 'get', '200')).toMatchObject({ type: 'array', items: ref('User') });
    expect(answer('/reader-access', 'post', '200')).toEqual(ref('ReaderAccess'));
    expect(schemas.WebhookList).toMatchObject({ properties: { items: { items: ref('Webhook') } } });
    expect(schemas.ChangelogPostList).toMatchObject({
      properties: { posts: { items: ref('ChangelogPost') } },
    });
    // Every error answer is the envelope.
    for (const { path, method, op } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response.content?.['application/json']?.schema, `${method} ${path} ${status}`).toEqual(
          ref('Error'),
        );
      }
    }
    expect(schemas.Error).toMatchObject({
      required: ['error'],
      properties: { error: { required: ['message', 'httpCode', 'code'] } },
    });
  });

  it('types GET /page as its contract says', async () => {
    const doc = await documentOf();
    const params = Object.fromEntries((doc.paths['/page']?.get?.parameters ?? []).map((p) => [p.name, p]));
    expect(params.version_id).toMatchObject({
      in: 'query',
      required: false,
      schema: { anyOf: [{ type: 'integer' }, { type: 'string', enum: ['latest'] }] },
    });
    expect(params.page_slug).toMatchObject({ in: 'query', required: true, schema: { type: 'string' } });
    expect(params.documentation_id).toMatchObject({ required: false, schema: { type: 'integer' } });
    expect(params.format?.schema).toMatchObject({
      enum: ['darkdown', 'markdown', 'html', 'text', 'markdoc'],
    });
  });

  it('describes the uploads as multipart with a binary file, and their raw alternatives', async () => {
    const doc = await documentOf();
    const upload = doc.paths['/version/{versionId}/reference']?.post?.requestBody?.content ?? {};
    expect(Object.keys(upload).sort()).toEqual(
      ['application/json', 'application/yaml', 'multipart/form-data', 'text/yaml'].sort(),
    );
    expect(upload['multipart/form-data']?.schema).toMatchObject({
      type: 'object',
      required: ['file'],
      properties: { file: { type: 'string', format: 'binary' } },
    });
    expect(upload['application/json']?.schema).toMatchObject({ type: 'object', additionalProperties: true });
    expect(upload['application/yaml']?.schema).toMatchObject({ type: 'string' });
    expect(upload['text/yaml']?.schema).toMatchObject({ type: 'string' });

    const archive = doc.paths['/import']?.post?.requestBody?.content ?? {};
    expect(archive['multipart/form-data']?.schema).toMatchObject({
      type: 'object',
      required: ['file'],
      properties: { file: { type: 'string', format: 'binary', contentMediaType: 'application/zip' } },
    });
    expect(archive['application/zip']?.schema).toMatchObject({ type: 'string', format: 'binary' });
  });

  it('gives every operation a declared tag, a summary, a description, its permission and its limit', async () => {
    const doc = await documentOf();
    expect(doc.info.contact).toBeDefined();
    expect(doc.info.license).toMatchObject({ name: 'MIT', identifier: 'MIT' });
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/api/v1' })]);
    const declared = new Map((doc.tags ?? []).map((tag) => [tag.name, tag.description]));
    const operations = operationsOf(doc);
    expect(operations.map(({ op }) => op.operationId).sort()).toEqual(Object.keys(PERMISSIONS).sort());
    for (const { path, method, op } of operations) {
      const id = `${method} ${path}`;
      expect(op.tags?.length, id).toBe(1);
      expect(declared.get(op.tags?.[0] ?? ''), id).toMatch(/\w/);
      expect(op.summary, id).toMatch(/\w/);
      expect(op.description, id).toMatch(/\w/);
      expect(op['x-permission'], id).toBe(PERMISSIONS[op.operationId]);
      const limit = OPERATIONS[op.operationId as keyof typeof OPERATIONS];
      expect(op['x-rate-limit'], id).toEqual({ limit: limit.limit, windowSeconds: limit.windowMs / 1000 });
    }
  });

  it('lists every status each operation can answer, with its headers', async () => {
    const doc = await documentOf();
    for (const { path, method, op } of operationsOf(doc)) {
      const id = `${method} ${path}`;
      const statuses = Object.keys(op.responses);
      // 414 and 431: a URL or headers too long, refused before any route runs.
      expect(statuses, id).toEqual(expect.arrayContaining(['400', '403', '414', '429', '431', '503']));
      for (const status of ['414', '431']) {
        expect(op.responses[status]?.content?.['application/json']?.schema, `${id} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
      }
      // Bodies are read (and refused past their limit) for these methods only: a GET's is ignored.
      expect(statuses.includes('413'), id).toBe(['POST', 'PUT', 'PATCH'].includes(method));
      // A JSON body of another type.
      if (op.requestBody?.content['application/json'] !== undefined) expect(statuses, id).toContain('415');
      // An Idempotency-Key reused for another request, or while its first request runs.
      if (method !== 'GET') expect(statuses, id).toEqual(expect.arrayContaining(['409', '422']));
      const [, ok] = success(op);
      expect(Object.keys(ok.headers ?? {}), id).toEqual(
        expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
      );
      for (const status of ['429', '503']) {
        expect(Object.keys(op.responses[status]?.headers ?? {}), `${id} ${status}`).toContain('Retry-After');
      }
    }
  });

  it('declares the headers once, as components, and refers to them from each operation', async () => {
    const doc = await documentOf();
    expect(doc.components.parameters).toEqual({
      IdempotencyKey: expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
      IfMatch: expect.objectContaining({ name: 'If-Match', in: 'header', required: false }),
      IfNoneMatch: expect.objectContaining({ name: 'If-None-Match', in: 'header', required: false }),
    });
    expect(Object.keys(doc.components.headers ?? {})).toEqual(
      expect.arrayContaining([
        'ETag',
        'Idempotent-Replayed',
        'X-RateLimit-Limit',
        'Retry-After',
        'X-Request-Id',
      ]),
    );
    const refs = (op: Operation) =>
      (op.parameters ?? []).flatMap((p) => ('$ref' in p ? [String(p.$ref)] : []));
    for (const { path, method, op } of operationsOf(doc)) {
      const id = `${method} ${path}`;
      // Inline header parameters would give a generated client one type per operation, or none.
      expect(
        (op.parameters ?? []).filter((p) => p.in === 'header'),
        id,
      ).toEqual([]);
      expect(refs(op).includes('#/components/parameters/IdempotencyKey'), id).toBe(method !== 'GET');
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          expect(header, `${id} ${status} ${name}`).toEqual({ $ref: `#/components/headers/${name}` });
          expect(doc.components.headers?.[name], name).toBeDefined();
        }
      }
    }
    const readPage = doc.paths['/page/{id}']?.get;
    expect(readPage && refs(readPage)).toEqual(['#/components/parameters/IfNoneMatch']);
    expect(Object.keys(readPage?.responses['200']?.headers ?? {})).toContain('ETag');
    const updatePage = doc.paths['/page/{id}']?.put;
    expect(updatePage && refs(updatePage)).toEqual([
      '#/components/parameters/IfMatch',
      '#/components/parameters/IdempotencyKey',
    ]);
    expect(Object.keys(updatePage?.responses['412']?.headers ?? {})).toContain('ETag');
    expect(Object.keys(updatePage?.responses['200']?.headers ?? {})).toContain('Idempotent-Replayed');
    const upload = doc.paths['/version/{versionId}/reference']?.post as Operation & Json;
    expect(upload['x-permission-alternatives']).toEqual([
      { permission: 'reference.edit', when: 'publish=false' },
    ]);
  });
});
