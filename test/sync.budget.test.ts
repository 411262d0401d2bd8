import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { createVersion, createWorld } from './helpers/factories.ts';
import { buildTestApp, client, type TestApp } from './helpers/test-app.ts';

/** The app on a real port, behind a proxy that records each request's method, path and status. */
let t: TestApp;
let proxyUrl = '';
let proxy: http.Server;
const seen: Array<{ method: string; path: string; status: number }> = [];
beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const target = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const name of ['x-api-key', 'content-type', 'idempotency-key', 'accept', 'if-none-match']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      void fetch(`${target}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      }).then(async (upstream) => {
        seen.push({ method: req.method ?? 'GET', path: req.url ?? '/', status: upstream.status });
        const type = upstream.headers.get('content-type');
        res.writeHead(upstream.status, type === null ? {} : { 'content-type': type });
        res.end(Buffer.from(await upstream.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await t.close();
});

const spec = (title: string) => `openapi: 3.0.3\ninfo:\n  title: ${title}\n  version: "1"\npaths: {}\n`;

/** A project with a version `docs`, and a folder of two pages and a reference to push to it. */
async function world() {
  const { project, key } = await createWorld(t.deps);
  const version = await createVersion(t.deps, project.id, { name: 'Docs', slug: 'docs', published: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-budget-'));
  const files: Record<string, string> = {
    'Guides/1 Intro.md': '# Introduction\n\nWelcome.\n',
    'Guides/2 Setup.md': '# Setup\n\nInstall it.\n',
    'refs/pets.yaml': spec('Pets'),
  };
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return { key, version, dir };
}

async function sync(dir: string, key: string, ...flags: string[]) {
  let stdout = '';
  let stderr = '';
  seen.length = 0;
  const argv = ['sync', dir, '--url', proxyUrl, '--key', key, '--version', 'docs', ...flags];
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stderr, summary: JSON.parse(stdout) as Record<string, Record<string, number>> };
}

/** How many /all requests the key has spent this hour: `X-RateLimit-Remaining` counts this one too. */
async function allSpent(key: string): Promise<number> {
  const answer = await client(t.app, key).get('/all');
  expect(answer.statusCode).toBe(200);
  return Number(answer.headers['x-ratelimit-remaining']) - 1;
}

describe('quire sync and the rate limits', () => {
  it('plans a dry run from one structure read, spending nothing of /all and reading nothing that 404s', async () => {
    const { key, dir } = await world();
    const first = await sync(dir, key, '--publish');
    expect(first.code).toBe(0);
    expect(await allSpent(key)).toBe(0);

    fs.writeFileSync(path.join(dir, 'Guides/2 Setup.md'), '# Setup\n\nInstall it twice.\n');
    const dry = await sync(dir, key, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.summary.pages).toMatchObject({ updated: 1, unchanged: 1 });
    expect(dry.summary.references).toMatchObject({ unchanged: 1 });
    expect(seen.filter((r) => r.path.startsWith('/api/v1/all'))).toEqual([]);
    expect(seen.filter((r) => r.path.startsWith('/api/v1/structure'))).toHaveLength(1);
    expect(seen.filter((r) => r.status === 404)).toEqual([]);
    // The published reference is read once, as published: it has no draft to ask for.
    expect(seen.filter((r) => r.path.includes('/definition')).map((r) => r.path)).toEqual([
      expect.not.stringContaining('draft=true'),
    ]);
    // One spent: by the check after the first run, none by either run.
    expect(await allSpent(key)).toBe(1);
  });

  it('counts what it published: pages and references uploaded with --publish', async () => {
    const { key, version, dir } = await world();
    const run = await sync(dir, key, '--publish');
    expect(run.code).toBe(0);
    expect(run.summary.pages).toMatchObject({ created: 2, published: 2 });
    expect(run.summary.references).toEqual({ uploaded: 1, published: 1, unchanged: 0 });
    const structure = await client(t.app, key).get('/structure?version_slug=docs');
    const body = structure.json<{
      version: { id: number };
      pages: Array<{ hasDraft: boolean; listed: boolean }>;
      references: Array<{ id: number; published: boolean; hasDraft: boolean }>;
    }>();
    expect(body.version.id).toBe(version.id);
    expect(body.pages).toEqual([
      expect.objectContaining({ hasDraft: false, listed: true }),
      expect.objectContaining({ hasDraft: false, listed: true }),
    ]);
    expect(body.references).toEqual([expect.objectContaining({ published: true, hasDraft: false })]);
    const definition = await client(t.app, key).get(`/reference/${body.references[0]?.id}/definition`);
    expect(definition.statusCode).toBe(200);
  });

  it('takes the address and the key from QUIRE_URL and QUIRE_KEY, and logs progress as lines', async () => {
    const { key, dir } = await world();
    const env = { ...process.env, QUIRE_URL: proxyUrl, QUIRE_KEY: key };
    const run = await promisify(execFile)(path.resolve('bin/quire'), ['sync', dir, '--version', 'docs'], {
      env,
    });
    const summary = JSON.parse(run.stdout) as { ok: boolean; pages: { created: number } };
    expect(summary).toMatchObject({ ok: true, pages: { created: 2 } });
    // Standard error is a pipe here: whole lines, no carriage returns, ending at 100%.
    expect(run.stderr).not.toContain('\r');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.every((l) => /^writing \d+\/\d+ \(\d+%\)$/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/^writing (\d+)\/\1 \(100%\)$/);
  });

  it('refuses to run without a key, naming both ways to give it', async () => {
    const { dir } = await world();
    let stderr = '';
    const saved = process.env.QUIRE_KEY;
    delete process.env.QUIRE_KEY;
    try {
      const code = await runCli(['sync', dir, '--url', proxyUrl, '--version', 'docs'], {
        stdout: () => undefined,
        stderr: (s) => (stderr += s),
      });
      expect(code).toBe(2);
      expect(stderr).toBe('quire: sync: --key is required (or set QUIRE_KEY)\n');
    } finally {
      if (saved !== undefined) process.env.QUIRE_KEY = saved;
    }
  });
});
