/**
 * What installing a client package costs a CI job: builds packages/cli (or packages/client), packs
 * it, installs the tarball into an empty project, and prints the packed size, the installed size
 * (its dependencies included) and the install's time (best of `--runs`, default 3). packages/cli has
 * no dependencies; packages/client's one (openapi-fetch) comes from the registry, or npm's cache.
 *
 *   node --import tsx bench/client-install.ts [--package cli|client] [--runs 3]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleClientCli } from '../src/ops/bundle-client-cli.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const option = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? (process.argv[at + 1] ?? fallback) : fallback;
};
const runs = Number(option('--runs', '3'));
const which = option('--package', 'cli');
if (which !== 'cli' && which !== 'client') throw new Error('--package is cli or client');
const folder = path.join(ROOT, 'packages', which);

function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? sizeOf(full) : fs.lstatSync(full).size;
  }
  return total;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-client-install-'));
try {
  if (which === 'cli') await bundleClientCli(path.join(folder, 'dist/quire.js'));
  else execFileSync('npx', ['tsc', '-p', path.join(folder, 'tsconfig.json')], { cwd: ROOT });
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
    cwd: folder,
    encoding: 'utf8',
  }).trim();
  const tarball = path.join(work, packed);
  let best = Number.POSITIVE_INFINITY;
  let installed = 0;
  for (let run = 0; run < runs; run++) {
    const project = fs.mkdtempSync(path.join(work, 'job-'));
    fs.writeFileSync(path.join(project, 'package.json'), '{"name":"job","private":true}');
    const started = performance.now();
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball], { cwd: project });
    best = Math.min(best, performance.now() - started);
    installed = sizeOf(path.join(project, 'node_modules'));
    // What was installed runs: the command, or the module's import.
    if (which === 'cli')
      execFileSync(path.join(project, 'node_modules/.bin/quire'), ['sync', '--help'], { stdio: 'ignore' });
    else
      execFileSync('node', ['--input-type=module', '-e', "await import('quire-client')"], { cwd: project });
  }
  console.log(`packed: ${(fs.statSync(tarball).size / 1024).toFixed(0)} KiB`);
  console.log(`installed: ${(installed / 1024).toFixed(0)} KiB`);
  console.log(`install time (best of ${runs}): ${(best / 1000).toFixed(2)} s`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
