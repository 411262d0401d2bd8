import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleClientCli } from '../src/ops/bundle-client-cli.ts';
import { createVersion, createWorld } from './helpers/factories.ts';
import { buildTestApp, client, type TestApp } from './helpers/test-app.ts';
import { buildZip } from './helpers/zip.ts';

/** packages/cli as built for release, run as its own process against the app on a real port. */
let t: TestApp;
let url = '';
let work = '';
let bundle = '';
beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-client-'));
  bundle = path.join(work, 'quire.js');
  // The build itself refuses a bundle holding a database driver or a service of the server.
  await bundleClientCli(bundle);
});
afterAll(async () => {
  fs.rmSync(work, { recursive: true, force: true });
  await t.close();
});

const run = (args: string[], env: Record<string, string>) =>
  promisify(execFile)(process.execPath, [bundle, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });

describe('the client package (packages/cli)', () => {
  it('is one file of pure JavaScript, with no server package beside it', () => {
    const text = fs.readFileSync(bundle, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(text).not.toMatch(/better-sqlite3|from ?"pg"|ioredis/);
    const manifest = JSON.parse(fs.readFileSync('packages/cli/package.json', 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.bin).toEqual({ quire: 'dist/quire.js' });
  });

  it('syncs a folder with the key from QUIRE_KEY', async () => {
    const { project, key } = await createWorld(t.deps);
    await createVersion(t.deps, project.id, { name: 'Docs', slug: 'docs', published: true });
    const dir = fs.mkdtempSync(path.join(work, 'docs-'));
    fs.mkdirSync(path.join(dir, 'Guides'));
    fs.writeFileSync(path.join(dir, 'Guides/1 Intro.md'), '# Introduction\n\nWelcome.\n');
    const synced = await run(['sync', dir, '--version', 'docs', '--publish'], {
      QUIRE_URL: url,
      QUIRE_KEY: key,
    });
    expect(JSON.parse(synced.stdout)).toMatchObject({ ok: true, pages: { created: 1, published: 1 } });
    const page = await client(t.app, key).get(
      '/page?version_slug=docs&documentation_slug=guides&page_slug=introduction',
    );
    expect(page.json()).toMatchObject({ title: 'Introduction', contentDraft: null });
  });

  it('imports an archive over HTTP, printing the server report', async () => {
    const { key } = await createWorld(t.deps);
    const archive = path.join(work, 'export.zip');
    fs.writeFileSync(
      archive,
      buildZip([{ name: 'imported/Guides/1 Hello.md', data: '---\ntitle: Hello\n---published\n\nHi.\n' }]),
    );
    const imported = await run(['import', archive, '--url', url], { QUIRE_KEY: key });
    const report = JSON.parse(imported.stdout) as { versions: unknown[]; pages: number };
    expect(report.pages).toBe(1);
    expect(imported.stderr).toMatch(/^quire: import: sending .*export\.zip \(\d+ bytes\)\n$/);
    const refused = await run(['import', archive, '--url', url], { QUIRE_KEY: 'qk_wrong' }).catch(
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/answered 403: API Key is invalid\./);
  });
});
