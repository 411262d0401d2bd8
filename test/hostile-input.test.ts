import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../src/http/body-parsers.ts';
import { MAX_DEFINITION_DEPTH } from '../src/openapi/definition.parser.ts';
import { createWorld } from './helpers/factories.ts';
import { upload } from './helpers/references.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

const nested = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
const nestedObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

interface Operation {
  method: string;
  path: string;
}

/** Every operation of the API's own description that takes a JSON body. */
async function jsonOperations(): Promise<Operation[]> {
  const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json<{
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
  }>();
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (op.requestBody?.content?.['application/json'] !== undefined && !path.endsWith('/reference')) {
        operations.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, '1') });
      }
    }
  }
  return operations;
}

describe('hostile input', () => {
  it(`answers 400 naming the limit to a JSON body nested 5,000 levels, on every JSON operation`, async () => {
    const w = await createWorld(t.deps);
    const operations = await jsonOperations();
    expect(operations.length).toBeGreaterThanOrEqual(5);
    for (const body of [nested(5000), nestedObject(5000), `{"title":${nested(5000, '"x"')}}`]) {
      expect(body.length).toBeGreaterThanOrEqual(10_000);
      for (const op of operations) {
        const res = await client(t.app, w.key).send(op.method, op.path, {
          payload: body,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.statusCode, `${op.method} ${op.path}`).toBe(400);
        expect(expectErrorShape(res)).toMatchObject({
          message: `body must not be nested more than ${MAX_JSON_DEPTH} levels deep`,
          details: [{ field: 'body', message: `must not be nested more than ${MAX_JSON_DEPTH} levels deep` }],
        });
      }
    }
  });

  it('counts only structure: brackets inside strings, and nesting up to the limit, are fine', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const content = `${'['.repeat(10_000)} and ${'{'.repeat(10_000)} "quoted \\" [ ]`;
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Brackets',
      content,
    });
    expect(created.statusCode).toBe(200);
    expect(created.json<{ contentDraft: string }>().contentDraft).toBe(content);
    // At the limit the body reaches schema validation, which names the field it does not like.
    const deepest = `{"title":"x","content":"y","slug":${nested(MAX_JSON_DEPTH - 1)}}`;
    const res = await api.post(`/documentation/${w.documentation.id}/page`, undefined, {
      payload: deepest,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toBe('Invalid request: body.slug must be string');
  });

  it('refuses invalid UTF-8 in a JSON body with 400, and stores nothing', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    for (const bytes of [
      [0xff], // never valid
      [0xc3], // a truncated sequence
      [0xed, 0xa0, 0x80], // an encoded surrogate
      [0xc0, 0xaf], // an overlong '/'
    ]) {
      const payload = Buffer.concat([
        Buffer.from('{"title":"Bad ', 'utf8'),
        Buffer.from(bytes),
        Buffer.from('","content":"x"}', 'utf8'),
      ]);
      const res = await api.post(`/documentation/${w.documentation.id}/page`, undefined, {
        payload,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(res.statusCode, bytes.join(',')).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({
        message: 'body is not valid UTF-8',
        details: [{ field: 'body', message: 'is not valid UTF-8' }],
      });
    }
    const pages = await t.deps.database.db.selectFrom('pages').select('id').execute();
    expect(pages).toEqual([]);
    // Valid multi-byte text is kept as sent.
    const ok = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Ünïcödé ✓ 𝄞',
      content: 'x',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json<{ title: string }>().title).toBe('Ünïcödé ✓ 𝄞');
  });

  it('refuses a lone surrogate escape in a JSON body with 400 naming the field, and stores nothing', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const problem = 'must not contain a lone surrogate (a \\ud800–\\udfff escape that is not half of a pair)';
    // Bodies as sent: each escape is JSON's own, read by the parser.
    for (const [payload, field] of [
      ['{"title":"a \\ud800","content":"x"}', 'body.title'], // a high one at the end
      ['{"title":"t","content":"\\udc00 b"}', 'body.content'], // a low one alone
      ['{"title":"\\uD83D x","content":"x"}', 'body.title'], // a high one before another character
      ['{"title":"\\ud83d\\ud83d\\ude00","content":"x"}', 'body.title'], // a high one before a pair
      ['{"title":"\\ude00\\ud83d","content":"x"}', 'body.title'], // a pair the wrong way round
      ['{"title":"t","content":"x","message":"\\udfff"}', 'body.message'],
    ]) {
      const res = await api.post(`/documentation/${w.documentation.id}/page`, undefined, {
        payload,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, payload).toBe(400);
      expect(expectErrorShape(res), payload).toMatchObject({
        message: `${field} ${problem}`,
        details: [{ field, message: problem }],
      });
    }
    expect(await t.deps.database.db.selectFrom('pages').select('id').execute()).toEqual([]);

    // A pair is one character, kept as sent; an escaped backslash before `ud800` is text.
    for (const [payload, title] of [
      ['{"title":"\\ud83d\\ude00 \\uD834\\uDD1E","content":"x"}', '😀 𝄞'],
      ['{"title":"\\\\ud800","content":"x"}', '\\ud800'],
    ]) {
      const res = await api.post(`/documentation/${w.documentation.id}/page`, undefined, {
        payload,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, payload).toBe(200);
      const read = await api.get(`/page/${res.json<{ id: number }>().id}`);
      expect(read.json<{ title: string }>().title).toBe(title);
    }
  });

  it('refuses OpenAPI files nested beyond the limit with a clean 400, in YAML and JSON', async () => {
    const w = await createWorld(t.deps);
    const head = 'openapi: 3.1.0\ninfo:\n  title: Deep\n  version: "1"\npaths: {}\nx-deep:\n';
    const files: Array<[string, string, 'application/yaml' | 'application/json']> = [
      [
        'block mappings, 3,000 levels',
        head + Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(i + 2)}a:`).join('\n'),
        'application/yaml',
      ],
      ['compact sequences', `${head}  ${'- '.repeat(50_000)}x\n`, 'application/yaml'],
      ['flow collections', `${head}  ${nested(100_000)}\n`, 'application/yaml'],
      [
        'JSON arrays',
        `{"openapi":"3.1.0","info":{"title":"Deep","version":"1"},"paths":{},"x":${nested(5000)}}`,
        'application/json',
      ],
    ];
    for (const [name, text, as] of files) {
      const res = await upload(t.app, w.key, w.version.id, text, { as });
      expect(res.statusCode, name).toBe(400);
      expect(expectErrorShape(res), name).toMatchObject({
        message: `The file is nested too deeply: more than ${MAX_DEFINITION_DEPTH} levels.`,
        details: [
          {
            field: 'file',
            message: `The file is nested too deeply: more than ${MAX_DEFINITION_DEPTH} levels.`,
          },
        ],
      });
    }
  });

  it('answers a path parameter over 100 characters with 414 in the envelope', async () => {
    const w = await createWorld(t.deps);
    const res = await client(t.app, w.key).get(`/page/${'1'.repeat(101)}`);
    expect(res.statusCode).toBe(414);
    expectErrorShape(res);
    expect(res.headers['x-request-id']).toBeDefined();
  });
});
