import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { buildTestApp, type TestApp } from './helpers/test-app.ts';
import { readDefinition, upload } from './helpers/references.ts';

/** Every example document the package ships (its own tests and README aside). */
const root = path.dirname(createRequire(import.meta.url).resolve('@readme/oas-examples/package.json'));
const examples = fs
  .readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((file) => /^\d\.\d\/.*\.(json|yaml)$/.test(file.split(path.sep).join('/')))
  .sort();

/** The one shipped example that breaks the OpenAPI schema: an empty `responses` object. */
const INVALID = new Set(['3.0/json/openapi-workshop/post.json']);

let t: TestApp;
let w: Awaited<ReturnType<typeof createWorld>>;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.deps);
});
afterAll(async () => {
  await t.close();
});

describe('every example of @readme/oas-examples', () => {
  it('ships enough examples of each version for this test to mean something', () => {
    for (const version of ['2.0', '3.0', '3.1']) {
      expect(examples.filter((f) => f.startsWith(version)).length).toBeGreaterThan(10);
    }
  });

  it.each(examples)('%s: accepted (or rejected with 400), read back byte for byte', async (file) => {
    const bytes = fs.readFileSync(path.join(root, file));
    const res = await upload(t.app, w.key, w.version.id, bytes, { filename: path.basename(file) });
    if (INVALID.has(file)) {
      expect(res.statusCode, res.body).toBe(400);
      return;
    }
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as number;

    const auto = await readDefinition(t.app, w.key, id);
    expect(auto.statusCode).toBe(200);
    expect(auto.rawPayload.equals(bytes)).toBe(true);

    // The other format is a conversion with the same meaning.
    const isJson = file.endsWith('.json');
    const original: unknown = isJson ? JSON.parse(bytes.toString('utf8')) : parseYaml(bytes.toString('utf8'));
    const converted = await readDefinition(t.app, w.key, id, { format: isJson ? 'yaml' : 'json' });
    expect(converted.statusCode).toBe(200);
    expect(isJson ? parseYaml(converted.body) : converted.json()).toEqual(original);
  });
});
