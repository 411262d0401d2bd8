import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createPublishRead } from './client/flow.ts';
import { clientTypes, SDK_TYPES_FILE } from './client/generate.ts';
import { sdkFlow } from './client/sdk-flow.ts';
import { createWorld } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

/**
 * A client generated from the live document with openapi-typescript + openapi-fetch compiles with no
 * cast and works against a real server: create a page, publish it, read it as HTML (issue 17).
 */
const FLOW_PATH = fileURLToPath(new URL('./client/flow.ts', import.meta.url));
const TSCONFIG_PATH = fileURLToPath(new URL('./client/tsconfig.flow.json', import.meta.url));
const SDK_TYPES_PATH = fileURLToPath(SDK_TYPES_FILE);
const SDK_FLOW_PATH = fileURLToPath(new URL('./client/sdk-flow.ts', import.meta.url));
const SDK_PATH = fileURLToPath(new URL('../packages/client/src/index.ts', import.meta.url));

// A webhook's secret is stored encrypted on PostgreSQL: the SDK flow registers one.
const t = useTestApp({ env: { WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') } });

async function liveTypes(): Promise<string> {
  const res = await client(t.app).get('/openapi.json');
  expect(res.statusCode).toBe(200);
  return clientTypes(res.json());
}

/** The compile errors of `root` when the generated types are `types` (in place of the committed file). */
function compileErrors(types: string, root = FLOW_PATH): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    TSCONFIG_PATH,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error(`cannot read ${TSCONFIG_PATH}`);
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (file === SDK_TYPES_PATH ? types : readFile(file));
  const program = ts.createProgram({ rootNames: [root], options: config.options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/** Casts and non-null assertions: what a client writes when the generated types are wrong. */
function castsIn(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node)) {
      found.push(node.getText(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('a client generated from /api/v1/openapi.json', () => {
  it('compiles the create → publish → read flow with no cast', { timeout: 60_000 }, async () => {
    const types = await liveTypes();
    expect(castsIn(FLOW_PATH)).toEqual([]);
    expect(compileErrors(types)).toEqual([]);
  });

  it('runs that flow against a real server', async () => {
    const w = await createWorld(t.deps);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const { created, retried, published, read } = await createPublishRead(
      `http://127.0.0.1:${port}/api/v1`,
      w.key,
      w.documentation.id,
    );
    expect(created).toMatchObject({ listed: false, contentPublished: null });
    expect(retried).toEqual({ id: created.id, replayed: true });
    expect(published).toMatchObject({ id: created.id, listed: true, contentDraft: null });
    expect(read.id).toBe(created.id);
    expect(read.contentPublished).toContain('<h1');
    expect(read.contentPublished).toContain('<em>typed</em>');
  });

  it(
    'compiles the SDK of packages/client and a flow through every kind of call with no cast',
    { timeout: 60_000 },
    async () => {
      const types = await liveTypes();
      expect(castsIn(SDK_PATH)).toEqual([]);
      expect(castsIn(SDK_FLOW_PATH)).toEqual([]);
      expect(compileErrors(types, SDK_FLOW_PATH)).toEqual([]);
      expect(
        fs.readFileSync(SDK_TYPES_PATH, 'utf8') === types,
        'packages/client/src/api.ts is not what the document gives: run npm run generate:client',
      ).toBe(true);
    },
  );

  it('runs the SDK flow against a real server: a lost answer is retried and written once', async () => {
    const w = await createWorld(t.deps);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const result = await sdkFlow(`http://127.0.0.1:${port}/api/v1`, w.key, w.version.id, w.documentation.id);
    expect(result.published).toMatchObject({ id: result.created.id, listed: true, contentDraft: null });
    expect(result.read.contentPublished).toContain('<em>SDK</em>');
    expect(result.reference).toMatchObject({ title: 'SDK pets' });
    expect(result.hits).toBeGreaterThanOrEqual(1);
    expect(result.exportBytes).toBeGreaterThan(22);
    // Two revisions (create, publish), one per page of the history: the cursor was followed.
    expect(result.revisions.map((r) => r.operation)).toEqual(['publish', 'create']);
    expect(result.webhook).toMatchObject({ events: ['page.published'] });
    expect(result.retried).toMatchObject({ replayed: true, requests: 2 });
    const pages = await client(t.app, w.key).get(`/all?versionId=${w.version.id}`);
    const titles = Object.values(pages.json<{ page: Record<string, { title: string }> }>().page).map(
      (p) => p.title,
    );
    expect(titles.filter((title) => title === 'Written once')).toHaveLength(1);
  });
});
