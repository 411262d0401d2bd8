/**
 * How long an admin command takes from the shell to its exit: `bin/quire` as a pipeline or an
 * operator runs it, on a SQLite database of its own in a temporary folder.
 *
 *   npm run build && node --import tsx bench/cli-startup.bench.ts [--runs 15]
 *
 * Each round runs, one after another: `node -e 0` (the floor: Node's own start on this machine at
 * this moment, which shows how loaded it is), `quire help`, `quire project list` and
 * `quire version list --project 1` on the build (the bundle in dist/cli-bundle/), and `quire project
 * list` from the sources through tsx (with `--source`; slow, for comparison). It prints the median and
 * the 90th percentile of the wall-clock time per command, and the median CPU time (user + system)
 * of the process, which a busy neighbour inflates less than the wall clock.
 *
 * Goal: a command on the build starts, runs and exits in under 400 ms.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg } from './fixtures/load.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'bin/quire');
const SOURCE_MAIN = new URL('../src/cli/main.ts', import.meta.url).href;

interface Run {
  wallMs: number;
  cpuMs: number;
}

/** cutime + cstime of this process: the CPU time of its children that have exited, in milliseconds. */
function childrenCpuMs(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  // After "pid (comm) " the state is field 3; cutime (16) and cstime (17) are at 13 and 14 here, in
  // clock ticks of 10 ms.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** Runs a command to its end, one at a time: the CPU it used is the growth of childrenCpuMs(). */
function timed(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const cpuBefore = childrenCpuMs();
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
      else resolve({ wallMs, cpuMs: childrenCpuMs() - cpuBefore });
    });
  });
}

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

async function main(): Promise<void> {
  const runs = Math.max(3, Number(arg('runs', '15')));
  const withSource = process.argv.includes('--source');
  if (!fs.existsSync(path.join(ROOT, 'dist/cli-bundle/quire.js'))) {
    throw new Error('no build: run `npm run build` first');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-cli-'));
  const env = { ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'quire.db')}`, LOG_LEVEL: 'warn' };
  const commands: Array<[string, string, string[]]> = [
    ['node -e 0 (floor)', process.execPath, ['-e', '0']],
    ['quire help', process.execPath, [BIN, 'help']],
    ['quire project list', process.execPath, [BIN, 'project', 'list']],
    ['quire version list --project 1', process.execPath, [BIN, 'version', 'list', '--project', '1']],
  ];
  try {
    // The first command migrates; these are not measured.
    await timed(process.execPath, [BIN, 'project', 'create', '--name', 'Bench'], env);
    await timed(process.execPath, [BIN, 'version', 'create', '--project', '1', '--name', 'v1'], env);
    const results = new Map<string, Run[]>(commands.map(([label]) => [label, []]));
    if (withSource) results.set('quire project list, sources through tsx', []);
    for (let round = 0; round < runs; round++) {
      for (const [label, command, args] of commands)
        results.get(label)!.push(await timed(command, args, env));
      if (withSource) {
        // What bin/quire runs when a file under src/ is newer than the build.
        const script = `const { main } = await import(${JSON.stringify(SOURCE_MAIN)}); await main(['project', 'list']);`;
        results
          .get('quire project list, sources through tsx')!
          .push(await timed(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], env));
      }
    }
    console.log(
      `${runs} runs each, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    for (const [label, list] of results) {
      if (list.length === 0) continue;
      const wall = list.map((r) => r.wallMs);
      const cpu = list.map((r) => r.cpuMs);
      console.log(
        `${label.padEnd(40)} median ${quantile(wall, 0.5).toFixed(0).padStart(5)} ms, p90 ${quantile(
          wall,
          0.9,
        )
          .toFixed(0)
          .padStart(5)} ms, CPU median ${quantile(cpu, 0.5).toFixed(0).padStart(4)} ms`,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
