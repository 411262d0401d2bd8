import { UsageError } from '../args.ts';
import { oneLine, type CliIo } from '../output.ts';
import { ProgressBar } from '../progress.ts';
import { applyPlan } from './sync.apply.ts';
import { parseSyncArgs, type SyncOptions } from './sync.args.ts';
import { SyncHttp, type RetryPolicy } from './sync.http.ts';
import { readGitState } from './sync.git.ts';
import { folderSource, readLocalState } from './sync.local.ts';
import { pagesToRead, planSync, referencesToRead } from './sync.plan.ts';
import { readContents, readDefinition, readRemoteState, type RemoteDefinition } from './sync.remote.ts';
import { summarise } from './sync.summary.ts';

/**
 * `quire sync DIR --url URL --key KEY --version SLUG [--publish] [--prune] [--dry-run]`: pushes a
 * folder to a Quire over HTTP (extensions §7). It opens no database: it is a client of the API.
 *
 * Exit codes: 0 all done; 1 a failure (the server unreachable, the version missing, DIR unreadable,
 * or a write refused: then the summary is still printed, naming it); 2 a usage error.
 */
export async function runSync(args: string[], io: CliIo, policy?: RetryPolicy): Promise<number> {
  let options: SyncOptions;
  try {
    options = parseSyncArgs(args);
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
  if (!options.dryRun && plan.steps.length > 0) {
    const writing = new ProgressBar(io.stderr, terminal, 'writing');
    outcome = await applyPlan(plan, {
      http,
      versionId: remote.versionId,
      publish: options.publish,
      pageIds: new Map(
        remote.sections.map((s) => [s.id, new Map(s.pages.map((p) => [p.slug, p.id]))] as const),
      ),
      progress: (done, total) => writing.update(done, total),
    });
    writing.end();
  }
  const summary = summarise({
    version: options.versionSlug,
    dryRun: options.dryRun,
    plan,
    steps: options.dryRun ? plan.steps : (outcome?.done ?? []),
    outcome,
    requests: http.counters,
    warnings: local.warnings,
  });
  io.stdout(`${JSON.stringify(summary)}\n`);
  const failures = summary.failures.length;
  if (failures === 0) return 0;
  io.stderr(`quire: sync: ${failures} of ${plan.steps.length} planned writes failed (see "failures")\n`);
  return 1;
}
