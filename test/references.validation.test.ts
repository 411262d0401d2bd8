import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { buildTestApp, expectErrorShape, type TestApp } from './helpers/test-app.ts';
import { readDefinition, upload } from './helpers/references.ts';

let t: TestApp;
let w: Awaited<ReturnType<typeof createWorld>>;
beforeEach(async () => {
  t = await buildTestApp();
  w = await createWorld(t.deps);
});
afterEach(async () => {
  await t.close();
});

interface ErrorBody {
  message: string;
  details?: Array<{ field: string; message: string }>;
}

async function rejected(content: string | Buffer, as: 'multipart' | 'application/json' = 'multipart') {
  const res = await upload(t.app, w.key, w.version.id, content, { as });
  expect(res.statusCode, res.body).toBe(400);
  return expectErrorShape(res) as ErrorBody;
}

describe('invalid definitions: what is wrong and where', () => {
  it('gives the JSON pointer and the line and column of a YAML file', async () => {
    const yaml = [
      'openapi: 3.0.3',
      'info:',
      '  title: Broken',
      '  version: "1"',
      'paths:',
      '  /pets:',
      '    get:',
      '      responses: {}',
      '',
    ].join('\n');
    const error = await rejected(yaml);
    expect(error.message).toBe(
      'Invalid OpenAPI 3.0 definition at /paths/~1pets/get/responses (line 8, column 18): must NOT have fewer than 1 properties',
    );
    expect(error.details).toEqual([
      {
        field: 'file#/paths/~1pets/get/responses',
        message: 'must NOT have fewer than 1 properties (line 8, column 18)',
      },
    ]);
  });

  it('gives the pointer and position in a JSON file, for every problem', async () => {
    const json =
      '{\n  "openapi": "3.0.3",\n  "info": {"title": "No version"},\n  "paths": {"/a": {"get": {"responses": {}}}}\n}';
    const error = await rejected(json);
    expect(error.message).toBe(
      "Invalid OpenAPI 3.0 definition at /info (line 3, column 11): must have required property 'version'",
    );
    expect(error.details?.map((d) => d.field)).toEqual(['file#/info', 'file#/paths/~1a/get/responses']);
  });

  it('points into the target of a $ref, where the problem is written', async () => {
    const yaml = [
      'openapi: 3.1.0',
      'info: {title: Refs, version: "1"}',
      'paths:',
      '  /a:',
      '    get:',
      '      responses:',
      "        '200': {$ref: '#/components/responses/Ok'}",
      'components:',
      '  responses:',
      '    Ok:',
      '      description: 5',
      '',
    ].join('\n');
    const error = await rejected(yaml);
    expect(error.details?.[0]).toEqual({
      field: 'file#/components/responses/Ok/description',
      message: 'must be string (line 11, column 20)',
    });
  });

  it('reports rule violations that are not schema errors (duplicate operationId, path parameters)', async () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Rules', version: '1' },
      paths: {
        '/a/{id}': { get: { operationId: 'x', responses: { '200': { description: 'ok' } } } },
      },
    };
    expect((await rejected(JSON.stringify(doc))).message).toMatch(/missing path parameter.*\{id\}/);
    const swagger = {
      swagger: '2.0',
      info: { title: 'Items', version: '1' },
      paths: { '/a': { get: { responses: { '200': { description: 'x', schema: { type: 'array' } } } } } },
    };
    expect((await rejected(JSON.stringify(swagger))).message).toMatch(
      /^Invalid Swagger 2.0 definition: .*items/,
    );
    const missing = {
      openapi: '3.0.3',
      info: { title: 'Missing', version: '1' },
      paths: { '/a': { get: { responses: { '200': { $ref: '#/components/responses/Nope' } } } } },
    };
    expect((await rejected(JSON.stringify(missing))).message).toMatch(/#\/components\/responses\/Nope/);
  });

  it('gives line and column of JSON and YAML syntax errors', async () => {
    const json = await rejected('{\n  "openapi": "3.0.3",\n  "info": {"title" "x"}\n}');
    expect(json.message).toBe("Invalid JSON at line 3, column 20: Expected ':' after property name.");
    // A file that starts like JSON is JSON: a trailing comma is not read as YAML flow style.
    expect((await rejected('{"openapi": "3.0.3",}')).message).toMatch(/^Invalid JSON at line 1, column 21/);
    const yaml = await rejected('openapi: 3.0.3\ninfo:\n  title: [unclosed\n  version: 1\n');
    expect(yaml.message).toMatch(/^Invalid YAML at line \d+, column \d+: /);
    expect((await rejected('a: 1\n---\nb: 2\n')).message).toMatch(/^Invalid YAML at line 2/);
    expect((await rejected('a: 1\na: 2\n')).message).toMatch(/^Invalid YAML at line 2, column 1: .*unique/);
  });

  it('accepts only OpenAPI 3.0, 3.1 and Swagger 2.0', async () => {
    expect((await rejected('[1, 2]')).message).toMatch(/top level must be an object/);
    expect((await rejected('title: not an API\n')).message).toMatch(/neither an 'openapi'.*nor a 'swagger'/);
    expect((await rejected('openapi: 3.2.0\ninfo: {title: T, version: "1"}\npaths: {}\n')).message).toMatch(
      /OpenAPI version '3.2.0' is not supported/,
    );
    expect((await rejected('swagger: "1.2"\n')).message).toMatch(/Swagger version '1.2' is not supported/);
    // Unquoted in YAML these are numbers, which the message explains.
    expect((await rejected('swagger: 2.0\n')).message).toMatch(/must be the string '2.0'/);
    expect((await rejected('openapi: 3.1\n')).message).toMatch(/must be a version string such as '3.1.0'/);
    expect((await rejected('just a string\n')).message).toMatch(/top level must be an object/);
  });

  it('refuses text that is not UTF-8, a NUL character, and an empty or overlong title', async () => {
    expect((await rejected(Buffer.from([0x6f, 0x70, 0xff, 0xfe]))).message).toBe(
      'The file is not UTF-8 text.',
    );
    expect((await rejected('openapi: 3.0.3\u0000\n')).message).toBe('The file contains a NUL character.');
    const titled = (title: string) =>
      JSON.stringify({ openapi: '3.0.3', info: { title, version: '1' }, paths: {} });
    const empty = await rejected(titled(' '));
    expect(empty.details).toEqual([{ field: 'file#/info/title', message: 'must not be empty' }]);
    expect((await rejected(titled('t'.repeat(201)))).message).toMatch(/at most 200 characters/);
    // Escaped in JSON, or written with YAML's escape, a NUL in the title is still refused.
    expect((await rejected(titled('Pets\u0000'))).details).toEqual([
      { field: 'file#/info/title', message: 'must not contain NUL characters' },
    ]);
    expect(
      (await rejected('openapi: 3.0.3\ninfo: {title: "Pets\\0", version: "1"}\npaths: {}\n')).details,
    ).toEqual([{ field: 'file#/info/title', message: 'must not contain NUL characters' }]);
  });
});

describe('hostile definitions', () => {
  it('rejects a YAML alias bomb quickly', async () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const started = Date.now();
    const error = await rejected(`openapi: 3.0.3\n${lines.join('\n')}\n`);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error.message).toMatch(/^Invalid YAML: .*alias/i);
  });

  it('rejects a $ref bomb (each schema pointing twice at the next) before the validator expands it', async () => {
    const schemas: Record<string, unknown> = { S40: { type: 'string' } };
    for (let i = 0; i < 40; i++) {
      const next = { $ref: `#/components/schemas/S${i + 1}` };
      schemas[`S${i}`] = { type: 'object', properties: { a: next, b: next } };
    }
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Bomb', version: '1' },
      paths: {},
      components: { schemas },
    };
    const started = Date.now();
    const error = await rejected(JSON.stringify(doc));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.message).toMatch(/too complex to validate/);
  });

  it('rejects a document nested too deeply, without a 5xx', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const doc = `{"openapi": "3.0.3", "info": {"title": "Deep", "version": "1"}, "paths": {}, "x-deep": ${deep}}`;
    expect((await rejected(doc)).message).toMatch(/nested too deeply/);
    const yamlDeep = `openapi: 3.0.3\nx-deep: ${'['.repeat(3000)}${']'.repeat(3000)}\n`;
    await rejected(yamlDeep);
  });

  it('executes no YAML tag: unknown and type tags leave plain strings', async () => {
    const yaml = [
      'openapi: 3.0.3',
      'info: {title: Tags, version: "1"}',
      'paths: {}',
      'x-binary: !!binary aGk=',
      'x-js: !!js/function "function () { return 1 }"',
      'x-custom: !custom value',
      '',
    ].join('\n');
    const res = await upload(t.app, w.key, w.version.id, yaml);
    expect(res.statusCode).toBe(201);
    const json = await readDefinition(t.app, w.key, res.json().id, { format: 'json' });
    expect(json.json()).toMatchObject({
      'x-binary': 'aGk=',
      'x-js': 'function () { return 1 }',
      'x-custom': 'value',
    });
  });

  it('never fetches an external $ref: a local listener gets no request, the $ref is kept unresolved', async () => {
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      res.setHeader('content-type', 'application/json');
      res.end('{"Pet": {"type": "string"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const external = `http://127.0.0.1:${port}/schemas.json#/Pet`;
      const doc = {
        openapi: '3.0.3',
        info: { title: 'External', version: '1' },
        paths: {
          '/pets': {
            get: {
              responses: {
                '200': {
                  description: 'ok',
                  content: { 'application/json': { schema: { $ref: external } } },
                },
                '404': { $ref: `http://localhost:${port}/responses.json#/NotFound` },
                '500': { $ref: './responses.yaml#/Error' },
                default: { $ref: 'file:///etc/passwd#/x' },
              },
            },
          },
        },
      };
      const text = JSON.stringify(doc, null, 2);
      const res = await upload(t.app, w.key, w.version.id, text);
      expect(res.statusCode, res.body).toBe(201);
      const back = await readDefinition(t.app, w.key, res.json().id);
      expect(back.body).toBe(text);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(requests).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
