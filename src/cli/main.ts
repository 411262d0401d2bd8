import { ConfigError, loadConfig } from '../config.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { MemoryCounterStore } from '../ratelimit/memory-store.ts';
import { UsageError } from './args.ts';
import type { Command } from './command.ts';
import { REMOTE_IMPORT_COMMAND } from './import-remote.ts';
import { oneLine, type CliIo } from './output.ts';
import { parseCommandLine } from './program.ts';
import { command, usageLine } from './spec.ts';
import { SYNC_COMMAND } from './sync/sync.ts';

/** Listed for help; `main` runs the server, and `runCli` migrates before any command anyway. */
const SERVER_COMMANDS: Record<string, Command> = {
  serve: command({
    summary: 'Run the server (same as npm start)',
    options: {},
    examples: ['quire serve'],
    run: () => Promise.reject(new UsageError('serve runs only as bin/quire serve')),
  }),
  migrate: command({
    summary: 'Bring the database on DATABASE_URL up to date',
    options: {},
    examples: ['DATABASE_URL=postgres://quire@db/quire quire migrate'],
    run: () => Promise.resolve({}),
  }),
};

/**
 * Runs one admin command over `deps` (or over deps built from the environment) and returns the exit
 * code. Contract: exactly one JSON object on stdout and exit 0, or one line on stderr and non-zero.
 * `--help` on any command prints its help on stdout (exit 0); `quire help` lists every command as
 * one JSON object.
 */
export async function runCli(argv: string[], io: CliIo, deps?: Deps): Promise<number> {
  const [group] = argv;
  if (group === undefined) {
    io.stderr("quire: no command given (run 'quire help' for the list)\n");
    return 2;
  }
  // A client of a (possibly remote) Quire over HTTP: it opens no database, and loads none of the
  // server's modules (a pipeline step starts faster).
  // `quire help page create` is `quire page create --help`.
  const words = group === 'help' && argv.length > 1 ? [...argv.slice(1), '--help'] : argv;
  if (words[0] === 'sync') {
    const parsed = parseCommandLine({ sync: SYNC_COMMAND }, words, io);
    return parsed.kind === 'done' ? parsed.code : parsed.spec.run({ io }, parsed.input);
  }
  // Loaded here rather than at the top: the services and the database drivers are most of a
  // command's start-up, and sync needs none of them.
  const [{ COMMANDS }, { createDeps }, { upgradeDatabase }] = await Promise.all([
    import('./commands.ts'),
    import('../deps.ts'),
    import('../upgrade.ts'),
  ]);
  const table = { ...SERVER_COMMANDS, ...COMMANDS };
  if (argv.length === 1 && (group === 'help' || group === '--help' || group === '-h')) {
    const usage = ['usage: quire <command> (quire <command> --help for its options and examples)'];
    usage.push(
      ...Object.entries({ ...table, sync: SYNC_COMMAND }).map(([name, spec]) => usageLine(name, spec)),
    );
    io.stdout(`${JSON.stringify({ usage })}\n`);
    return 0;
  }
  const parsed = parseCommandLine(table, words, io);
  if (parsed.kind === 'done') return parsed.code;
  // `import` without --project sends the archive to a server, like the client package's import.
  if (
    parsed.name === 'import' &&
    parsed.input.values.project === undefined &&
    parsed.input.values.url !== undefined
  )
    return REMOTE_IMPORT_COMMAND.run({ io }, parsed.input);
  let own: Deps | undefined;
  try {
    let applied: string[] = [];
    if (!deps) {
      // Every command migrates first, so a fresh database works without a separate step.
      // No metrics: a command serves no /metrics to be scraped.
      own = createDeps(
        { ...loadConfig(process.env), metrics: false },
        { counters: new MemoryCounterStore() },
      );
      applied = await upgradeDatabase(own.database);
    }
    const active = deps ?? own!;
    if (parsed.name === 'migrate') {
      if (deps) applied = await upgradeDatabase(active.database);
      io.stdout(`${JSON.stringify({ migrated: true, applied })}\n`);
      return 0;
    }
    const result = await parsed.spec.run(
      { deps: active, io: { stderr: io.stderr, stderrIsTerminal: io.stderrIsTerminal === true } },
      parsed.input,
    );
    io.stdout(`${JSON.stringify(result)}\n`);
    // The link scans a change queued are made before this process goes (a server would make them in
    // the background); the answer is already out.
    if (own) await own.linkScans.idle();
    return 0;
  } catch (error) {
    io.stderr(`quire: ${oneLine(message(error))}\n`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await own?.close();
  }
}

/**
 * What went wrong, in the command line's words: a field of the API's body is the flag that set it,
 * and a refusal that a setting of the server lifts names that setting.
 */
function message(error: unknown): string {
  if (error instanceof ConfigError) return error.problems.join('; ');
  if (error instanceof AppError) {
    const extra = (error.details ?? [])
      .map((d) => `${d.field} ${d.message}`)
      .filter((detail) => !error.message.includes(detail));
    const text = extra.length ? `${error.message} (${extra.join('; ')})` : error.message;
    return withHint(text.replace(/\bbody\.([a-zA-Z]+)/g, (_, field: string) => `--${kebab(field)}`));
  }
  if (error instanceof UsageError) return error.message;
  return error instanceof Error ? `unexpected error: ${error.message}` : String(error);
}

const kebab = (field: string) => field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const HINTS: Array<[RegExp, string]> = [
  [
    /loopback, private, link-local or reserved address/,
    'set WEBHOOK_ALLOW_PRIVATE=true on the server to allow targets on a private network',
  ],
];

function withHint(text: string): string {
  const hint = HINTS.find(([pattern]) => pattern.test(text))?.[1];
  return hint === undefined ? text : `${text}; ${hint}`;
}

export async function main(argv: string[]): Promise<void> {
  if (argv.length === 1 && argv[0] === 'serve') {
    const { serve } = await import('../main.ts');
    await serve();
    return;
  }
  const code = await runCli(argv, {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    stderrIsTerminal: process.stderr.isTTY,
  });
  process.exitCode = code;
}
