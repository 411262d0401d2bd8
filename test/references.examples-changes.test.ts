import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffDefinitions } from '../src/openapi/definition-diff.ts';
import { createWorld } from './helpers/factories.ts';
import { buildTestApp, client, type TestApp } from './helpers/test-app.ts';
import { upload } from './helpers/references.ts';

/**
 * The change report over the documents of @readme/oas-examples: the same API written for OpenAPI
 * 3.0 and 3.1, or for Swagger 2.0 and OpenAPI 3.0, and variants of the pet store. No crash, the
 * same report on every run and from both routes; a document against itself has no change.
 */
const root = path.dirname(createRequire(import.meta.url).resolve('@readme/oas-examples/package.json'));
const read = (file: string): Record<string, unknown> => {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return (file.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as Record<string, unknown>;
};
const named = (dir: string) => fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.json'));
const twins = (from: string, to: string): Array<[string, string]> =>
  named(`${to}/json`)
    .filter((f) => named(`${from}/json`).includes(f))
    .map((f) => [`${from}/json/${f}`, `${to}/json/${f}`]);

const PAIRS: Array<[string, string]> = [
  ...twins('3.0', '3.1'),
  ...twins('2.0', '3.0'),
  ['3.0/json/petstore-simple.json', '3.0/json/petstore.json'],
  ['3.0/json/petstore-expanded.json', '3.0/json/petstore.json'],
  ['2.0/json/petstore-minimal.json', '2.0/json/petstore-with-external-docs.json'],
];

const ALL = fs
  .readdirSync(root, { recursive: true, encoding: 'utf8' })
  .map((f) => f.split(path.sep).join('/'))
  .filter((f) => /^\d\.\d\/(json|yaml)\/.*\.(json|yaml)$/.test(f))
  .sort();

/** The package's YAML form of this one names other operations (POST and GET swapped on two paths). */
const TWINS_THAT_DIFFER = new Set(['3.1/json/parameters-style.json']);

interface Report {
  breaking: Array<{ kind: string; path: string; message: string }>;
  nonBreaking: Array<{ kind: string; path: string; message: string }>;
}

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

/** Both documents under one title, so the second upload replaces the first. */
const titled = (document: Record<string, unknown>) =>
  JSON.stringify({ ...document, info: { ...(document.info as object), title: 'Example pair' } });

describe('@readme/oas-examples pairs', () => {
  it('has the pairs this test is about', () => {
    expect(PAIRS.length).toBeGreaterThanOrEqual(12);
    expect(ALL.length).toBeGreaterThan(60);
  });

  it.each(PAIRS)('%s → %s: a stable report, the same on upload and read', async (before, after) => {
    const w = await createWorld(t.deps);
    const first = await upload(t.app, w.key, w.version.id, titled(read(before)), { as: 'application/json' });
    expect(first.statusCode, first.body).toBe(201);
    const second = await upload(t.app, w.key, w.version.id, titled(read(after)), {
      as: 'application/json',
      publish: false,
    });
    expect(second.statusCode, second.body).toBe(201);
    const report = second.json<{ changes: Report }>().changes;
    const url = `/reference/${first.json().id}/changes`;
    const again = await client(t.app, w.key).get(url);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(report);
    expect((await client(t.app, w.key).get(url)).body).toBe(again.body);
    const back = await client(t.app, w.key).get(`${url}?from=draft&to=published`);
    expect(back.statusCode).toBe(200);
    for (const list of [report.breaking, report.nonBreaking]) {
      const keys = list.map((c) => `${c.path}\n${c.kind}\n${c.message}`);
      expect(keys).toEqual([...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('finds what changed in the pet store from 3.0 to 3.1: the image upload body type', async () => {
    const report = diffDefinitions(read('3.0/json/petstore.json'), read('3.1/json/petstore.json'));
    const where = 'POST /pet/{petId}/uploadImage request';
    expect(report).toEqual({
      breaking: [
        {
          kind: 'request-media-type.removed',
          path: `${where} multipart/form-data`,
          message: 'media type multipart/form-data was removed',
        },
      ],
      nonBreaking: [
        {
          kind: 'request-media-type.added',
          path: `${where} application/octet-stream`,
          message: 'new media type application/octet-stream',
        },
      ],
    });
  });

  it('finds that the pet store from Swagger 2.0 to OpenAPI 3.0 made the pet id read-only', () => {
    const report = diffDefinitions(read('2.0/json/petstore.json'), read('3.0/json/petstore.json'));
    expect(report.breaking.map((c) => [c.kind, c.path, c.message])).toEqual(
      ['POST', 'PUT'].flatMap((method) =>
        ['application/json', 'application/xml'].map((type) => [
          'request-property.removed',
          `${method} /pet request ${type} body.id`,
          'property id became read-only',
        ]),
      ),
    );
  });

  it.each(ALL)('%s against itself, and against its other format: no change', (file) => {
    const document = read(file);
    expect(diffDefinitions(document, read(file))).toEqual({ breaking: [], nonBreaking: [] });
    const other = file.replace(/json/g, 'yaml');
    const twin = file.endsWith('.json') && ALL.includes(other) ? read(other) : structuredClone(document);
    const report = diffDefinitions(document, twin);
    if (TWINS_THAT_DIFFER.has(file)) expect(report.breaking.length).toBeGreaterThan(0);
    else expect(report).toEqual({ breaking: [], nonBreaking: [] });
  });
});
