import type { FastifyInstance, FastifyRequest, InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { checkAnswers } from './helpers/answer-check.ts';
import {
  adminContext,
  createCategory,
  createDocumentation,
  createVersion,
  createWorld,
} from './helpers/factories.ts';
import {
  baselineDraft,
  operationsOf,
  type Known,
  type Operation,
  type Resource,
} from './helpers/fuzz-inputs.ts';
import { openapiJson, upload } from './helpers/references.ts';
import { client, useTestApp, type TestApp } from './helpers/test-app.ts';

/*
 * Decision 0035: every header an operation honours is declared in its schema, and so in the OpenAPI
 * document, and every header it declares it honours. Each operation of the document is driven with
 * a request it accepts, over a project of its own, and what it does is observed:
 * - a stale If-Match answered 412 means it honours If-Match;
 * - the tag it sent (or `*`) in If-None-Match answered 304 means it honours If-None-Match;
 * - the same Idempotency-Key sent twice answered `Idempotent-Replayed: true` means it honours that;
 * - every ETag and Idempotent-Replayed it sends must be declared for the status it sends them with;
 * - every request header the app reads while serving it must be one every route reads (the key, the
 *   origin, the body's framing…) or one the operation declares.
 */

type Json = Record<string, unknown>;
interface DocOperation {
  operationId: string;
  parameters?: Json[];
  responses: Record<string, { headers?: Json }>;
}
interface Document {
  paths: Record<string, Record<string, DocOperation>>;
  components: { parameters?: Record<string, { name: string; in: string }> };
}

/** Headers read for every operation, or by the framework: none is an operation's own. */
const EVERY_ROUTE = new Set([
  'host',
  'x-api-key',
  'origin',
  'x-request-id',
  'content-type',
  'content-length',
  'transfer-encoding',
  // Content negotiation of the compression plugin, for every answer (README, "Compression").
  'accept-encoding',
  'x-no-compression',
  'accept',
  'connection',
  'expect',
  'user-agent',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  ':authority',
]);

/** The names of headers the app read from each request, by request id. */
const reads = new Map<string, Set<string>>();

function recordHeaderReads(app: FastifyInstance): void {
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const seen = new Set<string>();
    reads.set(request.id, seen);
    const raw = request.raw as { headers: Record<string, unknown> };
    // A copy of all the headers (a spread, a deep merge) lists them, then reads each: copying them
    // is not reading one, which is a lookup by name.
    let copying = new Set<string | symbol>();
    raw.headers = new Proxy(raw.headers, {
      ownKeys(target) {
        const keys = Reflect.ownKeys(target);
        copying = new Set(keys);
        return keys;
      },
      get(target, name, receiver) {
        if (copying.has(name)) copying.delete(name);
        else if (typeof name === 'string') seen.add(name.toLowerCase());
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    done();
  });
}

const t = useTestApp({
  env: { WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') },
  overrides: { webhookResolver: () => Promise.resolve([{ address: '203.0.113.31', family: 4 }]) },
});

interface World {
  key: string;
  pools: Record<Resource, number[]>;
  known: Known;
}

/** A project with two of everything an operation can name, as the fuzz's baseline requests expect. */
async function world(app: FastifyInstance, test: TestApp): Promise<World> {
  const w = await createWorld(test.deps);
  const api = client(app, w.key);
  const v2 = await createVersion(test.deps, w.project.id, { name: 'v2', slug: 'v2', published: false });
  const docV2 = await createDocumentation(test.deps, v2.id, { title: 'Other', slug: 'other' });
  await createCategory(test.deps, w.documentation.id, 'Getting Started');
  const page = async (title: string) => {
    const res = await api.post(`/documentation/${w.documentation.id}/page`, { title, content: '## A\n\nb' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ id: number; slug: string }>();
  };
  const pages = [await page('One'), await page('Two')];
  const anchor = await page('Anchor');
  const trash = await page('Trash');
  expect((await api.delete(`/page/${trash.id}`)).statusCode).toBe(200);
  const published = await upload(app, w.key, w.version.id, openapiJson('Pets'));
  // A draft over the published definition, for the publish.
  await upload(app, w.key, w.version.id, openapiJson('Pets', { 'x-draft': true }), { publish: false });
  const draft = await upload(app, w.key, w.version.id, openapiJson('Draft'), { publish: false });
  const ctx = await adminContext(test.deps, { projectId: w.project.id });
  const changelog = async (title: string) => (await test.deps.changelogs.create(ctx, { title })).id;
  // Granted to the address the baseline revoke names.
  expect((await api.post('/reader-access', { email: 'baseline@example.com' })).statusCode).toBe(200);
  const webhook = async () => {
    const res = await api.post('/webhooks', {
      url: 'https://hooks.example.test/q',
      events: ['page.created'],
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number }>().id;
  };
  return {
    key: w.key,
    pools: {
      version: [w.version.id, v2.id],
      documentation: [w.documentation.id, docV2.id],
      page: pages.map((p) => p.id),
      reference: [published.json<{ id: number }>().id, draft.json<{ id: number }>().id],
      changelog: [await changelog('News'), await changelog('API')],
      trash: [trash.id],
      webhook: [await webhook(), await webhook()],
    },
    known: {
      slugs: ['v1', 'guides'],
      categories: ['Getting Started'],
      emails: ['reader@example.com'],
      titles: ['One'],
      query: {
        version_id: String(w.version.id),
        documentation_id: String(w.documentation.id),
        page_slug: anchor.slug,
        query: 'one',
      },
      bigPages: {},
    },
  };
}

/** The operation's baseline request (fuzz-inputs.ts), with real ids, as inject options. */
function requestOf(op: Operation, w: World): InjectOptions & { headers: Record<string, string> } {
  const draft = baselineDraft(op, w.known);
  let path = draft.template;
  for (const [name, value] of Object.entries(draft.path)) {
    const id = 'text' in value ? value.text : w.pools[value.ref][value.pick % w.pools[value.ref].length];
    // Every page of the world has its first revision.
    path = path.replace(`{${name}}`, name === 'revision' ? '1' : String(id));
  }
  // The baseline moves a page under page 1, which is another project's, if any.
  let payload = draft.body?.payload;
  if (op.id === 'updatePage' && typeof payload === 'string') {
    const { parentId: _parentId, ...rest } = JSON.parse(payload) as Json;
    payload = JSON.stringify(rest);
  }
  return {
    method: draft.method,
    url: `/api/v1${path}${draft.query ? `?${draft.query}` : ''}`,
    headers: {
      'x-api-key': w.key,
      ...(draft.body?.contentType ? { 'content-type': draft.body.contentType } : {}),
    },
    ...(payload !== undefined ? { payload } : {}),
  };
}

interface Observed {
  /** request headers the operation acted on */
  honoured: Set<string>;
  /** `status header` for each ETag or Idempotent-Replayed sent */
  sent: Set<string>;
  /** request headers read beyond those of every route */
  read: Set<string>;
  /** the statuses of its plain answers */
  statuses: number[];
}

let keyCounter = 0;

async function observe(app: FastifyInstance, op: Operation, w: World): Promise<Observed> {
  const observed: Observed = { honoured: new Set(), sent: new Set(), read: new Set(), statuses: [] };
  const send = async (extra: Record<string, string>) => {
    const request = requestOf(op, w);
    const res = await app.inject({ ...request, headers: { ...request.headers, ...extra } });
    for (const name of ['ETag', 'Idempotent-Replayed']) {
      if (res.headers[name.toLowerCase()] !== undefined) observed.sent.add(`${res.statusCode} ${name}`);
    }
    const id = res.headers['x-request-id'];
    for (const name of reads.get(String(id)) ?? []) if (!EVERY_ROUTE.has(name)) observed.read.add(name);
    return res;
  };
  const key = `headers-test-${++keyCounter}`;
  if (op.method === 'GET') {
    const plain = await send({ 'Idempotency-Key': key });
    observed.statuses.push(plain.statusCode);
    const tag = plain.headers.etag;
    const conditional = await send({ 'If-None-Match': typeof tag === 'string' ? tag : '*' });
    if (conditional.statusCode === 304) observed.honoured.add('If-None-Match');
    const again = await send({ 'Idempotency-Key': key });
    if (again.headers['idempotent-replayed'] === 'true') observed.honoured.add('Idempotency-Key');
    return observed;
  }
  const stale = await send({ 'If-Match': '"stale"', 'Idempotency-Key': key });
  const replay = await send({ 'If-Match': '"stale"', 'Idempotency-Key': key });
  if (replay.headers['idempotent-replayed'] === 'true') observed.honoured.add('Idempotency-Key');
  if (stale.statusCode === 412) {
    observed.honoured.add('If-Match');
    observed.statuses.push((await send({})).statusCode);
  } else observed.statuses.push(stale.statusCode);
  return observed;
}

/** What the document declares of an operation: request headers, and `status header` of responses. */
function declaredOf(doc: Document, op: DocOperation) {
  const requestHeaders = new Set<string>();
  for (const parameter of op.parameters ?? []) {
    const ref = typeof parameter.$ref === 'string' ? parameter.$ref.split('/').pop() : undefined;
    const resolved = ref === undefined ? parameter : doc.components.parameters?.[ref];
    if (resolved?.in === 'header') requestHeaders.add(String(resolved.name));
  }
  const responseHeaders = new Set<string>();
  for (const [status, response] of Object.entries(op.responses)) {
    for (const name of Object.keys(response.headers ?? {})) responseHeaders.add(`${status} ${name}`);
  }
  return { requestHeaders, responseHeaders };
}

describe('the headers of every operation', () => {
  it(
    'are declared in the document exactly when the operation honours them',
    { timeout: 240_000 },
    async () => {
      const app = await buildApp(t.deps, {
        logger: false,
        instrument: (built) => {
          checkAnswers()(built);
          recordHeaderReads(built);
        },
      });
      try {
        const doc = (await client(app).get('/openapi.json')).json<Document>();
        const operations = operationsOf(doc as never);
        expect(operations.length).toBeGreaterThan(40);
        const problems: string[] = [];
        const honouredAnywhere = new Set<string>();
        for (const op of operations) {
          const documented = doc.paths[op.template]?.[op.method.toLowerCase()];
          if (documented === undefined) throw new Error(`${op.id} is not in the document`);
          const { requestHeaders, responseHeaders } = declaredOf(doc, documented);
          // Each operation over a project of its own: a delete or a clone changes what the next one finds.
          const observed = await observe(app, op, await world(app, t));
          // The baseline request must be accepted, or nothing it honours can be seen.
          if (!observed.statuses.every((status) => status < 400)) {
            problems.push(`${op.id}: its baseline request was answered ${observed.statuses.join(', ')}`);
          }
          for (const name of observed.honoured) honouredAnywhere.add(name);
          const declared = [...requestHeaders].sort();
          const honoured = [...observed.honoured].sort();
          if (declared.join() !== honoured.join()) {
            problems.push(`${op.id}: declares [${declared.join(', ')}] but honours [${honoured.join(', ')}]`);
          }
          for (const sent of observed.sent) {
            if (!responseHeaders.has(sent)) problems.push(`${op.id}: sends ${sent} undeclared`);
          }
          const lowerDeclared = new Set(declared.map((name) => name.toLowerCase()));
          for (const name of observed.read) {
            if (!lowerDeclared.has(name)) problems.push(`${op.id}: reads the header ${name} undeclared`);
          }
        }
        expect(problems).toEqual([]);
        // The probes themselves work: each header is honoured somewhere.
        expect([...honouredAnywhere].sort()).toEqual(['Idempotency-Key', 'If-Match', 'If-None-Match']);
      } finally {
        await app.close();
      }
    },
  );
});
