import { UsageError } from '../args.ts';
import { oneLine, type ClientContext, type CliIo } from '../output.ts';
import { parseCommandLine } from '../program.ts';
import { command } from '../spec.ts';
import { ProgressBar } from '../progress.ts';
import { applyPlan } from './sync.apply.ts';
import { checkBreaking, type BreakingChange } from './sync.breaking.ts';
import { SYNC_OPTIONS, syncOptions, type SyncOptions } from './sync.args.ts';
import { SyncHttp, type RetryPolicy } from './sync.http.ts';
import { readGitState } from './sync.git.ts';
import { folderSource, readLocalState } from './sync.local.ts';
import { pagesToRead, planSync, referencesToRead } from './sync.plan.ts';
import { readContents, readDefinition, readRemoteState, type RemoteDefinition } from './sync.remote.ts';
import { summarise } from './sync.summary.ts';

export const SYNC_COMMAND = command<ClientContext, number, typeof SYNC_OPTIONS>({
  summary: 'Push a folder (export layout or Git format) to a version of a Quire over HTTP',
  args: ['DIR'],
  options: SYNC_OPTIONS,
  examples: [
    'QUIRE_URL=https://docs.acme.io QUIRE_KEY=qk_... quire sync docs/ --version v1 --dry-run',
    'quire sync docs/ --version v1 --publish --prune   # QUIRE_URL and QUIRE_KEY set by the CI job',
  ],
  run: async ({ io, policy }, input) => {
    let options: SyncOptions;
    try {
      options = syncOptions(input);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      io.stderr(`quire: sync: ${oneLine(error.message)}\n`);
      return 2;
    }
    try {
      return await sync(options, io, policy);
    } catch (error) {
      io.stderr(`quire: sync: ${oneLine(error instanceof Error ? error.message : String(error))}\n`);
      return 1;
    }
  },
});

/**
 * `quire sync DIR --version SLUG [--url URL] [--key KEY] [--publish] [--prune] [--dry-run]`: pushes a
 * folder to a Quire over HTTP (extensions §7). It opens no database: it is a client of the API.
 *
 * Exit codes: 0 all done; 1 a failure (the server unreachable, the version missing, DIR unreadable,
 * or a write refused: then the summary is still printed, naming it); 2 a usage error.
 */
export async function runSync(args: string[], io: CliIo, policy?: RetryPolicy): Promise<number> {
  const parsed = parseCommandLine({ sync: SYNC_COMMAND }, ['sync', ...args], io);
  if (parsed.kind === 'done') return parsed.code;
  return parsed.spec.run({ io, ...(policy ? { policy } : {}) }, parsed.input);
}

async function sync(options: SyncOptions, io: CliIo, policy: RetryPolicy | undefined): Promise<number> {
  const terminal = io.stderrIsTerminal === true;
  // Retries and waits are worth a line in a pipeline's log; on a terminal they must not break the bar.
  const notice = (line: string) => io.stderr(`${terminal ? '\n' : ''}quire: sync: ${oneLine(line)}\n`);
  const http = new SyncHttp(options.apiBase, options.key, notice, policy);

  const source = await folderSource(options.dir);
  // A repository of the platform's Git format is recognised by its layout, as an import does.
  const local = (await readGitState(source, options.versionSlug)) ?? (await readLocalState(source));
  const remote = await readRemoteState(http, options.versionSlug);

  const reading = new ProgressBar(io.stderr, terminal, 'reading');
  const contents = await readContents(http, pagesToRead(local, remote), (done, total) =>
    reading.update(done, total),
  );
  reading.end();
  const definitions = new Map<number, RemoteDefinition | null>();
  for (const reference of referencesToRead(local, remote)) {
    definitions.set(reference.id, await readDefinition(http, reference));
  }

  const plan = planSync(local, { state: remote, contents, definitions }, options);
  let outcome;
  let checked: { drafts: number; breaking: BreakingChange[]; stopped: boolean } | undefined;
  let steps = plan.steps;
  if (!options.dryRun && options.failOnBreaking) {
    const check = await checkBreaking(steps, http, remote.versionId, options.publish);
    checked = { drafts: check.drafts, breaking: check.breaking, stopped: check.breaking.length > 0 };
    steps = checked.stopped ? [] : check.steps;
  }
  if (!options.dryRun && steps.length > 0) {
    const writing = new ProgressBar(io.stderr, terminal, 'writing');
    outcome = await applyPlan(
      { ...plan, steps },
      {
        http,
        versionId: remote.versionId,
        publish: options.publish,
        pageIds: new Map(
          remote.sections.map((s) => [s.id, new Map(s.pages.map((p) => [p.slug, p.id]))] as const),
        ),
        progress: (done, total) => writing.update(done, total),
      },
    );
    writing.end();
  }
  const summary = summarise({
    version: options.versionSlug,
    dryRun: options.dryRun,
    publish: options.publish,
    plan,
    steps: options.dryRun ? plan.steps : (outcome?.done ?? []),
    outcome,
    requests: http.counters,
    warnings: local.warnings,
    ...(checked !== undefined ? { checked } : {}),
  });
  for (const change of summary.breaking) {
    io.stderr(
      `quire: sync: ${change.file}: breaking: ${change.kind} at ${change.path}: ${oneLine(change.message)}\n`,
    );
  }
  io.stdout(`${JSON.stringify(summary)}\n`);
  if (checked?.stopped === true) {
    io.stderr(
      `quire: sync: ${summary.breaking.length} breaking change(s): nothing else was written, nothing published (--fail-on-breaking)\n`,
    );
    return 1;
  }
  const failures = summary.failures.length;
  if (failures === 0) return 0;
  io.stderr(`quire: sync: ${failures} of ${plan.steps.length} planned writes failed (see "failures")\n`);
  return 1;
}
