import net from 'node:net';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { checkAnswers } from './helpers/answer-check.ts';
import {
  adminContext,
  createCategory,
  createDocumentation,
  createKey,
  createUser,
  createVersion,
  createWorld,
} from './helpers/factories.ts';
import {
  BIG_CONTENTS,
  baselineDraft,
  operationsOf,
  randomDraftArb,
  systematicDrafts,
  type Auth,
  type Draft,
  type Known,
  type Operation,
  type Resource,
} from './helpers/fuzz-inputs.ts';
import { openapiJson, upload } from './helpers/references.ts';
import { client, dialectName, useTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Property: whatever arrives, at every operation of our own OpenAPI document, Quire answers below 500,
 * and every error carries the error body of decisions.md §4 as JSON, and the X-Request-Id header. The
 * inputs are seeded (FUZZ_SEED, default fixed; FUZZ_RUNS random requests per operation), so a failure
 * names the seed that reproduces it; every failure is collected, grouped, and the smallest request of
 * each group printed, rather than stopping at the first.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const RANDOM_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 110);
/**
 * Every limit × 1000: the fuzz must reach validation and handlers, not the rate limiter. A render may
 * take 10 s, not 30: a pathological page then costs the run a third of the time it would.
 */
const ENV = {
  RATE_LIMIT_SCALE: '1000',
  WORKER_TASK_TIMEOUT: '10000',
  // Webhooks need a key on PostgreSQL; their targets are resolved by the resolver below, never by DNS.
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
};
/** concurrent copies of each writing operation's valid request, after the sequential run */
const BURST = 12;

type Pools = Record<Resource, number[]>;

interface World {
  keys: Record<Exclude<Auth, 'none' | 'empty' | 'invalid' | 'padded' | 'repeated' | 'long'>, string>;
  pools: Pools;
  foreign: Pools;
  known: Known;
}

async function setUpWorld(t: TestApp): Promise<World> {
  const w = await createWorld(t.deps);
  const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2', published: false });
  const docV2 = await createDocumentation(t.deps, v2.id, { title: 'Reference Docs', slug: 'reference-docs' });
  await createCategory(t.deps, w.documentation.id, 'Getting Started');
  await createUser(t.deps, w.project.id, { email: 'writer@example.com' });
  const api = client(t.app, w.key);
  const pages: number[] = [];
  const seeds: Array<[number, Record<string, string>]> = [
    [w.documentation.id, { title: 'Page One', slug: 'page-one', content: '## Intro\n\nHello %name%.' }],
    [
      w.documentation.id,
      {
        title: 'Page Two',
        content: '$plugin[\n{"type":"callout","data":{"text":"x"}}\n]$',
        categoryTitle: 'getting started',
      },
    ],
    [docV2.id, { title: 'Elsewhere', content: '[auto$](/guides/page-one)' }],
  ];
  for (const [docId, body] of seeds) {
    const res = await api.post(`/documentation/${docId}/page`, body);
    expect(res.statusCode, res.body).toBe(200);
    pages.push(res.json().id);
  }
  expect((await api.put(`/page/${pages[0]}/publish`)).statusCode).toBe(200);
  // Not in the pools, so no fuzzed update renames it: GET /page can always find it by slug.
  const anchor = await api.post(`/documentation/${w.documentation.id}/page`, {
    title: 'Anchor',
    content: '## A\n\nb',
  });
  expect(anchor.statusCode).toBe(200);
  // In a version of their own, outside the pools: a fuzzed clone of a pool version would copy them
  // again and again, and every export would then convert each copy.
  const bigVersion = await createVersion(t.deps, w.project.id, {
    name: 'big',
    slug: 'big',
    published: false,
  });
  const bigSection = await createDocumentation(t.deps, bigVersion.id, { title: 'Big', slug: 'big' });
  const bigPages: Record<string, number> = {};
  for (const [label, content] of Object.entries(BIG_CONTENTS)) {
    const big = await api.post(`/documentation/${bigSection.id}/page`, { title: label, content });
    expect(big.statusCode).toBe(200);
    bigPages[label] = big.json().id;
  }
  // As the server warms its pool when it starts (src/main.ts): this app's pool is its own (ENV sets
  // WORKER_TASK_TIMEOUT), and its first thread's start, loading the tasks through tsx, is then not
  // part of the first upload's wait for a thread (the task's own time counts from its start).
  await t.deps.workers.warm();
  const published = await upload(t.app, w.key, w.version.id, openapiJson('Pet Store'));
  const draft = await upload(t.app, w.key, w.version.id, openapiJson('Draft API'), { publish: false });
  // The published one has a pending draft too: the change report's default (published to draft)
  // then answers for it, as it would for a definition being worked on.
  const pending = await upload(t.app, w.key, w.version.id, openapiJson('Pet Store'), { publish: false });
  expect([published.statusCode, draft.statusCode, pending.statusCode]).toEqual([201, 201, 201]);
  expect((await api.post('/reader-access', { email: 'reader@example.com' })).statusCode).toBe(200);

  const deleted = await api.post(`/documentation/${w.documentation.id}/page`, {
    title: 'Deleted',
    content: 'x',
  });
  expect((await api.delete(`/page/${deleted.json().id}`)).statusCode).toBe(200);
  const changelog = async (projectId: number, title: string) =>
    (await t.deps.changelogs.create(await adminContext(t.deps, { projectId }), { title })).id;
  const changelogs = [await changelog(w.project.id, 'Product updates'), await changelog(w.project.id, 'API')];

  const other = await createWorld(t.deps);
  const otherPage = await client(t.app, other.key).post(`/documentation/${other.documentation.id}/page`, {
    title: 'Theirs',
    content: 'x',
  });
  const otherRef = await upload(t.app, other.key, other.version.id, openapiJson('Their API'));
  const webhook = async (key: string) => {
    const res = await client(t.app, key).post('/webhooks', {
      url: 'https://hooks.example.test/quire',
      events: ['page.created', 'page.published'],
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number }>().id;
  };
  return {
    keys: {
      admin: w.key,
      foreign: other.key,
      'read-only': (await createKey(t.deps, w.project.id, { permissions: ['page.read'] })).key,
      'other-version': (await createKey(t.deps, w.project.id, { versions: [v2.id] })).key,
    },
    pools: {
      version: [w.version.id, v2.id],
      documentation: [w.documentation.id, docV2.id],
      page: pages,
      reference: [published.json().id, draft.json().id],
      changelog: changelogs,
      trash: [deleted.json().id],
      webhook: [await webhook(w.key), await webhook(w.key)],
    },
    foreign: {
      version: [other.version.id],
      documentation: [other.documentation.id],
      page: [otherPage.json().id],
      reference: [otherRef.json().id],
      changelog: [await changelog(other.project.id, 'Theirs')],
      trash: [otherPage.json().id],
      webhook: [await webhook(other.key)],
    },
    known: {
      slugs: [
        'v1',
        'v2',
        'latest',
        'guides',
        'reference-docs',
        'page-one',
        'page-two',
        'elsewhere',
        'pet-store',
      ],
      categories: ['Getting Started', 'GETTING STARTED', 'nope'],
      emails: ['reader@example.com', 'READER@Example.com', 'writer@example.com', 'unknown@example.com'],
      titles: ['Page One', 'Pet Store', 'v1', 'Guides'],
      query: {
        version_id: String(w.version.id),
        documentation_id: String(w.documentation.id),
        page_slug: anchor.json().slug,
      },
      bigPages,
    },
  };
}

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string | Buffer;
}

function toRequest(draft: Draft, world: World): Sent {
  let path = draft.template;
  for (const [name, value] of Object.entries(draft.path)) {
    let text: string;
    if ('text' in value) text = value.text;
    else {
      const pool = (value.foreign ? world.foreign : world.pools)[value.ref];
      text = String(pool[value.pick % pool.length] ?? 1);
    }
    path = path.replace(`{${name}}`, text);
  }
  const headers: Record<string, string | string[]> = {};
  const admin = world.keys.admin;
  switch (draft.auth) {
    case 'admin':
    case 'foreign':
    case 'read-only':
    case 'other-version':
      headers['x-api-key'] = world.keys[draft.auth];
      break;
    case 'none':
      break;
    case 'empty':
      headers['x-api-key'] = '';
      break;
    case 'invalid':
      headers['x-api-key'] = `qk_${'x'.repeat(43)}`;
      break;
    case 'padded':
      headers['x-api-key'] = `  ${admin}  `;
      break;
    case 'repeated':
      headers['x-api-key'] = [admin, `qk_${'y'.repeat(43)}`];
      break;
    case 'long':
      headers['x-api-key'] = `qk_${'k'.repeat(10_000)}`;
      break;
  }
  if (draft.body?.contentType != null) headers['content-type'] = draft.body.contentType;
  Object.assign(headers, draft.headers);
  return {
    method: draft.method,
    url: `/api/v1${path}${draft.query ? `?${draft.query}` : ''}`,
    headers,
    ...(draft.body ? { payload: draft.body.payload } : {}),
  };
}

/** The error body of decisions.md §4, exactly: `{"error":{"message","httpCode","code"[,"details"]}}`. */
function envelopeProblems(status: number, contentType: string | undefined, body: string | null): string[] {
  const problems: string[] = [];
  if (!/^application\/json\s*(;|$)/i.test(contentType ?? '')) {
    problems.push(
      `error content-type is ${contentType === undefined ? 'missing' : `'${contentType}'`}, not JSON`,
    );
  }
  if (body === null) return problems;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [...problems, body === '' ? 'error body is empty' : 'error body is not JSON'];
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(parsed) || Object.keys(parsed).join() !== 'error' || !isObject(parsed.error)) {
    return [
      ...problems,
      `error body is not {"error":{…}} (keys: ${isObject(parsed) ? Object.keys(parsed).join(',') : typeof parsed})`,
    ];
  }
  const e = parsed.error;
  const extra = Object.keys(e).filter((k) => !['message', 'httpCode', 'code', 'details'].includes(k));
  if (extra.length > 0) problems.push(`error has unexpected fields ${extra.join(',')}`);
  if (typeof e.message !== 'string' || e.message === '')
    problems.push('error.message is not a non-empty string');
  for (const field of ['httpCode', 'code'] as const) {
    if (e[field] !== status) problems.push(`error.${field} is ${JSON.stringify(e[field])}, not the status`);
  }
  if (e.details !== undefined) {
    const ok =
      Array.isArray(e.details) &&
      e.details.length > 0 &&
      e.details.every(
        (d) =>
          isObject(d) &&
          Object.keys(d).sort().join() === 'field,message' &&
          typeof d.field === 'string' &&
          typeof d.message === 'string',
      );
    if (!ok) problems.push('error.details is not a non-empty array of {field, message} strings');
  }
  return problems;
}

/** `/a/../b`, `/a/%2E/b`…: segments the router resolves before it looks for the operation. */
const dotSegment = (url: string): boolean => /\/(\.|%2e){1,2}(?=\/|\?|$)/i.test(url.split('?')[0] ?? '');

function responseProblems(
  res: {
    status: number;
    contentType: string | undefined;
    requestId: string | undefined;
    body: string | null;
  },
  draft?: Draft,
): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`server error ${res.status}`);
  if (res.requestId === undefined) problems.push('no X-Request-Id header');
  if (draft?.body?.mustReject !== undefined && res.status < 400)
    problems.push(`accepted ${draft.body.mustReject}`);
  if (res.status >= 400) problems.push(...envelopeProblems(res.status, res.contentType, res.body));
  const noBody = draft?.body === undefined || Buffer.byteLength(draft.body.payload) === 0;
  if (draft?.op && Object.keys(draft.op.body).length === 0 && noBody && res.status === 415) {
    problems.push('415 for an empty body to an operation that takes none (decisions.md §4: any or no type)');
  }
  const unknownRoute = res.status === 404 && (res.body ?? '').includes('"message":"Route ');
  if (draft?.op && res.status < 500 && !unknownRoute && !draft.op.statuses.has(res.status)) {
    problems.push(`status ${res.status} is not documented for the operation`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Failure report

interface Failure {
  problem: string;
  cause: string;
  sent: Sent;
  draft: Draft | null;
  status: number;
  response: string;
}

/** Runs of a short unit shown as `⟨'[' × 5000⟩`; non-printable bytes as \xNN; cut after `max`. */
function shown(value: string | Buffer, max = 240): string {
  const raw = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  const text = [...raw]
    .map((b) =>
      b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`,
    )
    .join('');
  let out = '';
  let i = 0;
  while (i < text.length && out.length < max) {
    let compressed = false;
    for (let unit = 1; unit <= 6 && !compressed; unit++) {
      const part = text.slice(i, i + unit);
      let reps = 1;
      while (text.startsWith(part, i + reps * unit)) reps++;
      if (reps >= 4 && reps * unit >= 16) {
        out += `⟨'${part}' × ${reps}⟩`;
        i += reps * unit;
        compressed = true;
      }
    }
    if (!compressed) out += text[i++];
  }
  return i < text.length ? `${out}… (${raw.length} bytes in all)` : out;
}

function describeFailure(f: Failure, world: World): string {
  const keyNames = new Map(Object.entries(world.keys).map(([name, key]) => [key, `<${name} key>`]));
  const header = ([name, value]: [string, string | string[]]) => {
    const values = (Array.isArray(value) ? value : [value]).map((v) => keyNames.get(v) ?? shown(v, 80));
    return `${name}: ${values.join(' | ')}`;
  };
  const body = f.sent.payload;
  const bytes = body === undefined ? 0 : Buffer.byteLength(body);
  return [
    `    ${f.sent.method} ${shown(f.sent.url, 300)}`,
    `    headers: ${Object.entries(f.sent.headers).map(header).join('; ') || '(none)'}`,
    `    body: ${body === undefined ? '(none)' : `${bytes} bytes${f.draft?.body?.note ? ` — ${f.draft.body.note}` : ''}: ${shown(body)}`}`,
    `    → ${f.status} ${shown(f.response, 300)}`,
  ].join('\n');
}

function report(failures: Failure[], world: World): string {
  // One group per symptom (and logged cause), across operations: one root cause is one entry.
  const groups = new Map<string, Failure[]>();
  for (const f of failures) {
    // Values in a cause's message (`value "2147483648" is out of range`) do not make another cause.
    const [message = '', frame] = f.cause.split(' at src/');
    const cause = `${message.replace(/\d{3,}/g, 'N')}${frame ? ` at src/${frame}` : ''}`;
    const key = `${f.problem} (status ${f.status})${cause ? ` — cause: ${cause}` : ''}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const size = (f: Failure) =>
    f.sent.url.length + (f.sent.payload === undefined ? 0 : Buffer.byteLength(f.sent.payload));
  const sections = [...groups].map(([key, list]) => {
    const smallest = list.reduce((a, b) => (size(b) < size(a) ? b : a));
    const kinds = [...new Set(list.map((f) => f.draft?.kind ?? ''))];
    const where = [
      ...new Set(list.map((f) => f.draft?.op?.id ?? `${f.sent.method} ${f.draft?.template ?? ''}`)),
    ];
    return [
      `  [${list.length}×] ${key}`,
      `    operations: ${where.join(', ')}`,
      `    kinds: ${kinds.slice(0, 6).join(' ; ')}${kinds.length > 6 ? ` ; … ${kinds.length - 6} more` : ''}`,
      `    smallest:`,
      describeFailure(smallest, world),
    ].join('\n');
  });
  return `${groups.size} distinct failures (${failures.length} failing requests); seed ${SEED} (rerun with FUZZ_SEED=${SEED})\n${sections.join('\n')}`;
}

// ---------------------------------------------------------------------------------------------

const t = useTestApp({
  env: ENV,
  overrides: { webhookResolver: () => Promise.resolve([{ address: '203.0.113.30', family: 4 }]) },
});

describe('fuzz: every operation of /api/v1/openapi.json', () => {
  it(
    'answers below 500, with the error body on every error, whatever the input',
    { timeout: 180_000 },
    async () => {
      // A second instance over the same database, logging errors to us: a 500's cause goes in the report.
      const log = errorLog();
      const app = await buildApp(t.deps, { logger: log.options, instrument: checkAnswers() });
      try {
        const world = await setUpWorld(t);
        const doc = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
        expect(doc.statusCode).toBe(200);
        const operations = operationsOf(doc.json());
        expect(operations.length).toBeGreaterThanOrEqual(17);

        const started = Date.now();
        const drafts = allDrafts(operations, world.known);
        const { failures, succeeded, timings } = await send(app, drafts, world, log.causes);
        const bursts = burstDrafts(operations, world.known);
        failures.push(...(await send(app, bursts, world, log.causes, BURST)).failures);
        const requests = 1 + drafts.length + bursts.length;
        const serverErrors = failures.filter((f) => f.problem.startsWith('server error')).length;
        console.log(
          `fuzz: ${requests} requests over ${operations.length} operations, ${serverErrors} server error${serverErrors === 1 ? '' : 's'} ` +
            `(${dialectName}, ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED})`,
        );
        if (process.env.FUZZ_PROFILE) console.log(profile(timings));

        // Every operation was reached for real at least once, or the fuzz proves little about it.
        const unreached = operations.filter((op) => !succeeded.has(op.id)).map((op) => op.id);
        const problems = [
          ...(unreached.length > 0 ? [`operations never answered 2xx: ${unreached.join(', ')}`] : []),
          ...(failures.length > 0 ? [report(failures, world)] : []),
        ];
        if (problems.length > 0) throw new Error(problems.join('\n'));
      } finally {
        await app.close();
      }
    },
  );
});

/** Pino options writing to us: request id → the error's message and the first frame in src/. */
function errorLog() {
  const causes = new Map<string, string>();
  const stream = {
    write(line: string) {
      const entry = JSON.parse(line) as { reqId?: string; err?: { message?: string; stack?: string } };
      const frame = /\((\/[^)]*\/src\/[^)]*)\)/
        .exec(entry.err?.stack ?? '')?.[1]
        ?.replace(/^.*\/src\//, 'src/');
      const message = (entry.err?.message ?? '').slice(0, 120);
      if (entry.reqId) causes.set(entry.reqId, `${message}${frame ? ` at ${frame}` : ''}`);
    },
  };
  // buildApp's type names only the level; Fastify passes the rest on to pino.
  return { causes, options: { level: 'error', stream } as { level: string } };
}

/** Systematic cases of every operation, undeclared methods, then the seeded random ones interleaved. */
function allDrafts(operations: Operation[], known: Known): Draft[] {
  const drafts: Draft[] = operations.flatMap((op) => systematicDrafts(op, known));
  drafts.push(...undeclaredMethods(operations));
  // An upload parses a whole OpenAPI file: half as many keep it from dominating the run's time.
  const random = operations.map((op, i) =>
    fc.sample(randomDraftArb(op, known), {
      seed: SEED + i * 7919,
      numRuns: op.id === 'uploadReference' ? Math.ceil(RANDOM_PER_OPERATION / 2) : RANDOM_PER_OPERATION,
    }),
  );
  // Interleaved, so a state one operation changed (a renamed version) meets the others.
  for (let i = 0; i < RANDOM_PER_OPERATION; i++) {
    for (const list of random) {
      const draft = list[i];
      if (draft) drafts.push(draft);
    }
  }
  // Deletes last, sections before versions: what they remove, the other operations' baselines need.
  const rank = (d: Draft) => (d.op?.method !== 'DELETE' ? 0 : d.op.id === 'deleteVersion' ? 2 : 1);
  return drafts
    .map((draft, i) => ({ draft, i }))
    .sort((a, b) => rank(a.draft) - rank(b.draft) || a.i - b.i)
    .map(({ draft }) => draft);
}

/**
 * One request at a time (`parallel` 1), so that a seed replays the same states as well as the same
 * inputs; or batches of `parallel` requests at once.
 */
async function send(
  app: FastifyInstance,
  drafts: Draft[],
  world: World,
  causes: Map<string, string>,
  parallel = 1,
) {
  const failures: Failure[] = [];
  const succeeded = new Set<string>();
  const timings: Array<[number, string]> = [];
  for (let i = 0; i < drafts.length; i += parallel) {
    const batch = drafts.slice(i, i + parallel).map((draft) => ({ draft, sent: toRequest(draft, world) }));
    const started = performance.now();
    const responses = await Promise.all(
      batch.map(({ sent }) => app.inject({ ...sent, method: sent.method as InjectOptions['method'] })),
    );
    const ms = (performance.now() - started) / batch.length;
    batch.forEach(({ draft, sent }, j) => {
      const res = responses[j];
      if (res === undefined) return;
      timings.push([ms, `${draft.op?.id ?? draft.method} ${draft.kind}`]);
      const requestId = res.headers['x-request-id'];
      const status = res.statusCode;
      const problems = responseProblems(
        {
          status,
          contentType: res.headers['content-type'],
          requestId: typeof requestId === 'string' ? requestId : undefined,
          body: draft.method === 'HEAD' ? null : res.body,
        },
        // A path with a dot segment is resolved to another route before the operation is chosen.
        dotSegment(sent.url) ? { ...draft, op: null } : draft,
      );
      const cause = typeof requestId === 'string' && status >= 500 ? (causes.get(requestId) ?? '') : '';
      for (const problem of problems)
        failures.push({ problem, cause, sent, draft, status, response: res.body });
      if (status < 300 && draft.op) {
        succeeded.add(draft.op.id);
        if (/json/.test(String(res.headers['content-type'])))
          rememberCreated(draft.op, res.json(), world.pools);
      }
    });
  }
  return { failures, succeeded, timings };
}

/** The valid request of every writing operation, BURST copies at once: a race ends in 2xx or 409. */
function burstDrafts(operations: Operation[], known: Known): Draft[] {
  return operations
    .filter((op) => op.method !== 'GET')
    .flatMap((op) => Array.from({ length: BURST }, () => ({ ...baselineDraft(op, known), kind: 'burst' })));
}

/** FUZZ_PROFILE=1: where the time goes, to keep the run well inside its budget. */
function profile(timings: Array<[number, string]>): string {
  const byFamily = new Map<string, number>();
  for (const [ms, kind] of timings) {
    const family = kind.replace(/^(\S+ )random: .*/, '$1random');
    byFamily.set(family, (byFamily.get(family) ?? 0) + ms);
  }
  const total = timings.reduce((sum, [ms]) => sum + ms, 0);
  const top = [...byFamily].sort((a, b) => b[1] - a[1]).slice(0, 20);
  return [
    `${total.toFixed(0)} ms in inject`,
    ...top.map(([k, ms]) => `${ms.toFixed(0).padStart(7)} ms  ${k}`),
  ].join('\n');
}

function rememberCreated(op: Operation, body: unknown, pools: Pools): void {
  const id = (body as { id?: unknown } | null)?.id;
  if (typeof id !== 'number') return;
  const pool = op.id === 'createPage' ? pools.page : op.id === 'uploadReference' ? pools.reference : null;
  if (pool && !pool.includes(id)) pool.push(id);
}

/** Methods a path does not declare: the unknown-route answer, with the error body, for each. */
function undeclaredMethods(operations: Operation[]): Draft[] {
  const templates = new Map<string, Operation[]>();
  for (const op of operations) templates.set(op.template, [...(templates.get(op.template) ?? []), op]);
  const drafts: Draft[] = [];
  for (const [template, ops] of templates) {
    const declared = new Set(ops.map((op) => op.method));
    for (const method of ['GET', 'PUT', 'POST', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) {
      if (declared.has(method) || (method === 'HEAD' && declared.has('GET'))) continue;
      drafts.push({
        kind: `undeclared-method ${method}`,
        method,
        template,
        op: null,
        path: ops[0]?.pathParams.length
          ? Object.fromEntries(
              ops[0].pathParams.map((p) => [p.name, { ref: p.resource ?? 'page', pick: 0, foreign: false }]),
            )
          : {},
        query: '',
        auth: 'admin',
        headers: {},
      });
    }
  }
  return drafts;
}

// ---------------------------------------------------------------------------------------------
// Node-level cases: app.inject skips Node's HTTP parser, so these go over a real socket.

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` to a new connection and reads one response (or none: null). */
function exchange(port: number, request: string | Buffer, timeoutMs = 3_000): Promise<RawResponse | null> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(data));
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const parsed = parse(data);
      const length = Number(parsed?.headers['content-length'] ?? NaN);
      if (parsed && Number.isFinite(length) && Buffer.byteLength(parsed.body) >= length) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

function parse(data: Buffer): RawResponse | null {
  const text = data.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (status === undefined) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = '';
    for (let rest = body; ;) {
      const size = parseInt(rest, 16);
      if (!(size > 0)) break;
      const start = rest.indexOf('\r\n') + 2;
      decoded += rest.slice(start, start + size);
      rest = rest.slice(start + size + 2);
    }
    body = decoded;
  }
  return { status: Number(status), headers, body };
}

describe('fuzz: Node-level request errors over a real socket', () => {
  it('answers malformed HTTP with the error body too', { timeout: 60_000 }, async () => {
    const w = await createWorld(t.deps);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const head = (line: string, extra = '', end = '\r\n') =>
      `${line}\r\nHost: 127.0.0.1\r\nX-Api-Key: ${w.key}\r\nConnection: close\r\n${extra}${end}`;
    const post = (extra: string, body: string) =>
      `${head(`POST /api/v1/documentation/${w.documentation.id}/page HTTP/1.1`, `Content-Type: application/json\r\n${extra}`)}${body}`;
    const cases: Array<{ name: string; request: string | Buffer; statuses?: number[] }> = [
      {
        name: 'one header of 17 KB',
        request: head('GET /api/v1/version HTTP/1.1', `X-Big: ${'a'.repeat(17 * 1024)}\r\n`),
        statuses: [431],
      },
      {
        name: 'headers of 30 KB in all',
        request: head(
          'GET /api/v1/version HTTP/1.1',
          Array.from({ length: 1000 }, (_, i) => `X-H${i}: ${'v'.repeat(24)}\r\n`).join(''),
        ),
        statuses: [431],
      },
      {
        name: 'URL of 20 KB (path parameter)',
        request: head(`GET /api/v1/page/${'1'.repeat(20_000)} HTTP/1.1`),
        statuses: [414, 431],
      },
      {
        name: 'URL of 20 KB (query)',
        request: head(`GET /api/v1/version?x=${'q'.repeat(20_000)} HTTP/1.1`),
        statuses: [414, 431],
      },
      {
        name: 'URL of 8 KB (path parameter)',
        request: head(`GET /api/v1/page/${'1'.repeat(8_000)} HTTP/1.1`),
      },
      { name: 'URL of 8 KB (query)', request: head(`GET /api/v1/version?x=${'q'.repeat(8_000)} HTTP/1.1`) },
      { name: 'garbage request line', request: 'GARBAGE\r\n\r\n', statuses: [400] },
      { name: 'unknown HTTP version', request: head('GET /api/v1/version HTTP/9.9') },
      { name: 'unknown method', request: head('FOO /api/v1/version HTTP/1.1') },
      { name: 'CONNECT', request: head('CONNECT example.com:443 HTTP/1.1') },
      { name: 'space in the URL', request: head('GET /api/v1/ver sion HTTP/1.1') },
      { name: 'NUL in the URL', request: head('GET /api/v1/page/\u0000 HTTP/1.1') },
      {
        name: 'raw 0xFF byte in the URL',
        request: Buffer.concat([
          Buffer.from('GET /api/v1/page/'),
          Buffer.from([0xff]),
          Buffer.from(head(' HTTP/1.1').slice(1)),
        ]),
      },
      { name: 'absolute-form URL', request: head('GET http://evil.example/api/v1/version HTTP/1.1') },
      { name: 'asterisk-form URL', request: head('OPTIONS * HTTP/1.1') },
      {
        name: 'bad chunk size',
        request: post('Transfer-Encoding: chunked\r\n', 'zz\r\n{}\r\n0\r\n\r\n'),
        statuses: [400],
      },
      {
        name: 'chunk longer than its size',
        request: post('Transfer-Encoding: chunked\r\n', '2\r\n{"title":"x","content":"y"}\r\n0\r\n\r\n'),
        statuses: [400],
      },
      {
        name: 'chunked and Content-Length together',
        request: post('Transfer-Encoding: chunked\r\nContent-Length: 5\r\n', '2\r\n{}\r\n0\r\n\r\n'),
        statuses: [400],
      },
      {
        name: 'Transfer-Encoding: gzip only',
        request: post('Transfer-Encoding: gzip\r\n', '{}'),
        statuses: [400],
      },
      {
        name: 'Content-Length not a number',
        request: post('Content-Length: abc\r\n', '{}'),
        statuses: [400],
      },
      {
        name: 'two different Content-Lengths',
        request: post('Content-Length: 2\r\nContent-Length: 3\r\n', '{}'),
        statuses: [400],
      },
      {
        name: 'header name with a space',
        request: head('GET /api/v1/version HTTP/1.1', 'X Bad: 1\r\n'),
        statuses: [400],
      },
      {
        name: 'header value with a control character',
        request: head('GET /api/v1/version HTTP/1.1', 'X-Bad: a\u0001b\r\n'),
        statuses: [400],
      },
      {
        name: 'header line without a colon',
        request: head('GET /api/v1/version HTTP/1.1', 'NoColon\r\n'),
        statuses: [400],
      },
      {
        name: 'obsolete folded header',
        request: head('GET /api/v1/version HTTP/1.1', 'X-A: a\r\n  b\r\n'),
      },
      {
        name: 'HTTP/1.1 without Host',
        request: `GET /api/v1/version HTTP/1.1\r\nX-Api-Key: ${w.key}\r\nConnection: close\r\n\r\n`,
        statuses: [400],
      },
      { name: 'two Host headers', request: head('GET /api/v1/version HTTP/1.1', 'Host: evil.example\r\n') },
      {
        name: 'Expect other than 100-continue',
        request: head('GET /api/v1/version HTTP/1.1', 'Expect: something-else\r\n'),
      },
      {
        name: 'bare LF line ends',
        request: `GET /api/v1/version HTTP/1.1\nHost: 127.0.0.1\nX-Api-Key: ${w.key}\nConnection: close\n\n`,
      },
      {
        name: 'Upgrade: websocket',
        request: head(
          'GET /api/v1/version HTTP/1.1',
          'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n',
        ).replace('Connection: close', 'Connection: Upgrade'),
      },
    ];
    const failures: string[] = [];
    const observed: string[] = [];
    for (const c of cases) {
      const res = await exchange(port, c.request);
      observed.push(`  ${c.name} → ${res ? res.status : 'no response'}`);
      if (res === null) {
        failures.push(`${c.name}: the connection closed without an HTTP response`);
        continue;
      }
      const problems = responseProblems({
        status: res.status,
        contentType: res.headers['content-type'],
        requestId: res.headers['x-request-id'],
        body: res.body,
      });
      if (c.statuses && !c.statuses.includes(res.status))
        problems.push(`status ${res.status}, expected ${c.statuses.join(' or ')}`);
      if (problems.length > 0) {
        const headers = Object.entries(res.headers).map(([k, v]) => `${k}: ${v}`);
        failures.push(
          `${c.name} → ${res.status}: ${problems.join('; ')}\n` +
            `    request: ${shown(c.request, 160)}\n    response headers: ${headers.join('; ')}\n` +
            `    response body: ${shown(res.body, 200) || '(empty)'}`,
        );
      }
    }
    console.log(`fuzz (socket): ${cases.length} requests\n${observed.join('\n')}`);
    if (failures.length > 0) {
      throw new Error(
        `${failures.length} of ${cases.length} socket requests failed:\n  ${failures.join('\n  ')}`,
      );
    }
  });
});
