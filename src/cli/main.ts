import { ConfigError, loadConfig } from '../config.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { MemoryCounterStore } from '../ratelimit/memory-store.ts';
import { UsageError } from './args.ts';
import { oneLine, type CliIo } from './output.ts';

const USAGE = `usage: quire <command>
  serve | migrate
  project create --name NAME [--plan free|grow|enterprise] [--access public|invite] [--base-path PATH] [--host URL] [--variables JSON] [site settings]
  project update ID [--name] [--plan] [--access] [--base-path] [--host] [--variables JSON] [site settings]
    site settings: [--site-logo DATA_URL|/PATH] [--site-color '#RRGGBB'] [--site-css FILE] [--redirects FILE] ('' clears one)
    reader login (update only): [--reader-jwt-key FILE] (HS256 secret of 32+ bytes, or RS256/ES256 public key PEM; '' removes it)
  project list
  key create --project ID [--name NAME] [--permissions all|P1,P2,...] [--versions all|ID1,ID2,...] [--user USER_ID]
  key revoke ID
  key rotate ID
  key list --project ID
  version create --project ID --name NAME [--slug SLUG] [--published]
  version list --project ID
  documentation create --version ID --title TITLE [--slug SLUG] [--published]
  documentation list --version ID
  category create --documentation ID --title TITLE
  user create --project ID --name NAME --email EMAIL --role ADMIN|PUBLISHER|WRITER|REVIEWER
  user list --project ID
  page create --documentation ID --title TITLE (--content TEXT | --file PATH) [--slug SLUG] [--category TITLE] [--message MSG]
  page update ID [--title TITLE] [--slug SLUG] [--content TEXT | --file PATH] [--message MSG]
  page publish ID
  reference upload --version ID FILE [--draft]
  changelog create --project ID --title TITLE [--slug SLUG]
  search reindex [--project ID]
  purge
  import --project ID FILE.zip [--draft] [--strict]
  webhook create --project ID --url URL [--events all|E1,E2,...] [--description TEXT]
  webhook list --project ID
  webhook delete ID
  sync DIR --url URL --key KEY --version SLUG [--publish] [--prune] [--dry-run]`;

/**
 * Runs one admin command over `deps` (or over deps built from the environment) and returns the exit
 * code. Contract: exactly one JSON object on stdout and exit 0, or one line on stderr and non-zero.
 */
export async function runCli(argv: string[], io: CliIo, deps?: Deps): Promise<number> {
  const [group, action, ...rest] = argv;
  if (group === 'help' || group === '--help') {
    io.stdout(`${JSON.stringify({ usage: USAGE.split('\n').map((line) => line.trim()) })}\n`);
    return 0;
  }
  // A client of a (possibly remote) Quire over HTTP: it opens no database, and loads none of the
  // server's modules (a pipeline step starts faster).
  if (group === 'sync') return (await import('./sync/sync.ts')).runSync(argv.slice(1), io);
  // Loaded here rather than at the top: the services and the database drivers are most of a
  // command's start-up, and sync and help need none of them.
  const [{ COMMANDS }, { createDeps }, { upgradeDatabase }] = await Promise.all([
    import('./commands.ts'),
    import('../deps.ts'),
    import('../upgrade.ts'),
  ]);
  const name = `${group ?? ''} ${action ?? ''}`;
  // Two-word commands (`page create`), then one-word ones (`import`), whose arguments start at once.
  const single = COMMANDS[name] === undefined && group !== undefined ? COMMANDS[group] : undefined;
  const command = single ?? COMMANDS[name];
  const args = single !== undefined ? argv.slice(1) : action === undefined ? [] : rest;
  if (group === undefined) {
    io.stderr("quire: no command given (run 'quire help' for the list)\n");
    return 2;
  }
  if (group !== 'migrate' && !command) {
    io.stderr(`quire: unknown command '${argv.join(' ')}' (run 'quire help' for the list)\n`);
    return 2;
  }
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
    if (group === 'migrate') {
      if (deps) applied = await upgradeDatabase(active.database);
      io.stdout(`${JSON.stringify({ migrated: true, applied })}\n`);
      return 0;
    }
    const result = await command!(active, args, {
      stderr: io.stderr,
      stderrIsTerminal: io.stderrIsTerminal === true,
    });
    io.stdout(`${JSON.stringify(result)}\n`);
    // The link scans a change queued are made before this process goes (a server would make them in
    // the background); the answer is already out.
    if (own) await own.linkScans.idle();
    return 0;
  } catch (error) {
    io.stderr(`quire: ${describe(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await own?.close();
  }
}

function describe(error: unknown): string {
  return oneLine(message(error));
}

function message(error: unknown): string {
  if (error instanceof ConfigError) return error.problems.join('; ');
  if (error instanceof AppError) {
    const extra = (error.details ?? [])
      .map((d) => `${d.field} ${d.message}`)
      .filter((detail) => !error.message.includes(detail));
    return extra.length ? `${error.message} (${extra.join('; ')})` : error.message;
  }
  if (error instanceof UsageError) return error.message;
  return error instanceof Error ? `unexpected error: ${error.message}` : String(error);
}

export async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'serve') {
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
