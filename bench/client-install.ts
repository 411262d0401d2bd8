/**
 * What installing the client package costs a CI job: builds packages/cli, packs it, installs the
 * tarball into an empty project, and prints the packed size, the installed size and the install's
 * time (best of `--runs`, default 3). Runs offline: the package has no dependencies.
 *
 *   node --import tsx bench/client-install.ts [--runs 3]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleClientCli } from '../src/ops/bundle-client-cli.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const at = process.argv.indexOf('--runs');
const runs = at > 0 ? Number(process.argv[at + 1]) : 3;

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
  await bundleClientCli(path.join(ROOT, 'packages/cli/dist/quire.js'));
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
    cwd: path.join(ROOT, 'packages/cli'),
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
    execFileSync(path.join(project, 'node_modules/.bin/quire'), ['sync', '--help'], { stdio: 'ignore' });
  }
  console.log(`packed: ${(fs.statSync(tarball).size / 1024).toFixed(0)} KiB`);
  console.log(`installed: ${(installed / 1024).toFixed(0)} KiB`);
  console.log(`install time (best of ${runs}): ${(best / 1000).toFixed(2)} s`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
