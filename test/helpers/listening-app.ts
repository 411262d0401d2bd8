import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { buildTestApp, currentApp, type TestApp } from './test-app.ts';

/** The file's app on a real port, with what its tests leave behind removed after each. */
export interface ListeningApp extends TestApp {
  /** where it listens: `http://127.0.0.1:PORT` (set before the file's first test) */
  url: string;
  /** Runs after the current test, the last added first. */
  afterTest(cleanup: () => Promise<void> | void): void;
  /** A new empty folder, removed after the current test. */
  tempDir(prefix: string): string;
}

/**
 * One app for the file, listening on a real port, for the clients that speak HTTP (the CLI's sync).
 * Each test still owns its data (a project, key and version of its own); the app's build is paid
 * once rather than per test. `const t = useListeningApp();` then `t.deps`, `t.url`…
 */
export function useListeningApp(): ListeningApp {
  let current: TestApp | undefined;
  const cleanups: Array<() => Promise<void> | void> = [];
  const listening: ListeningApp = Object.assign(
    currentApp(() => current, 'useListeningApp: no app outside the file'),
    {
      url: '',
      afterTest(cleanup: () => Promise<void> | void) {
        cleanups.push(cleanup);
      },
      tempDir(prefix: string) {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
        cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
        return dir;
      },
    },
  );
  beforeAll(async () => {
    current = await buildTestApp();
    await current.app.listen({ host: '127.0.0.1', port: 0 });
    listening.url = `http://127.0.0.1:${(current.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return listening;
}

/** `quire ARGV` run in this process: its exit code and what it wrote. */
export async function runQuire(
  argv: string[],
  options: { stderrIsTerminal?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    ...options,
  });
  return { code, stdout, stderr };
}

/** `quire sync DIR --url URL --key KEY --version VERSION [FLAGS…]` run in this process. */
export function runQuireSync(
  to: { dir: string; url: string; key: string; version: string },
  flags: string[] = [],
  options: { stderrIsTerminal?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = ['sync', to.dir, '--url', to.url, '--key', to.key, '--version', to.version];
  return runQuire([...argv, ...flags], options);
}
