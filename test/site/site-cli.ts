import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import type { Deps } from '../../src/deps.ts';

/** Runs a `bin/quire` command in-process over a test app's services, with its streams and JSON. */
export async function quire(deps: Deps, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, deps);
  return { code, stdout, stderr, json: code === 0 ? (JSON.parse(stdout) as Record<string, unknown>) : null };
}

/**
 * Files for the flags that take one, in a folder of the calling test file's own, removed when that
 * file ends (test files share modules, so the folder cannot be one of this module's).
 */
export function useTempFiles(): (contents: string | Buffer, name?: string) => string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-site-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  return (contents, name = 'file.txt') => {
    const file = path.join(dir, `${++files}-${name}`);
    fs.writeFileSync(file, contents);
    return file;
  };
}
