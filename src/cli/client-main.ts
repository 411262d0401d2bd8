import { REMOTE_IMPORT_COMMAND } from './import-remote.ts';
import type { ClientContext, CliIo } from './output.ts';
import { parseCommandLine, type CommandTable } from './program.ts';
import { usageLine } from './spec.ts';
import { SYNC_COMMAND } from './sync/sync.ts';

/*
 * The entry of the small client package (packages/cli, built by src/ops/bundle-client-cli.ts): the
 * commands that talk to a Quire over HTTP, and nothing of the server (no database driver).
 */

const CLIENT_COMMANDS: CommandTable<ClientContext, number> = {
  sync: SYNC_COMMAND,
  import: REMOTE_IMPORT_COMMAND,
};

/** Runs one client command; returns its exit code. `quire help` lists them as one JSON object. */
export async function runClient(argv: string[], io: CliIo): Promise<number> {
  const [first] = argv;
  if (
    first === undefined ||
    (argv.length === 1 && (first === 'help' || first === '--help' || first === '-h'))
  ) {
    const usage = ['usage: quire <command> (quire <command> --help for its options and examples)'];
    usage.push(...Object.entries(CLIENT_COMMANDS).map(([name, spec]) => usageLine(name, spec)));
    (first === undefined ? io.stderr : io.stdout)(`${JSON.stringify({ usage })}\n`);
    return first === undefined ? 2 : 0;
  }
  const words = first === 'help' ? [...argv.slice(1), '--help'] : argv;
  const parsed = parseCommandLine(CLIENT_COMMANDS, words, io);
  return parsed.kind === 'done' ? parsed.code : parsed.spec.run({ io }, parsed.input);
}

export async function main(argv: string[]): Promise<void> {
  process.exitCode = await runClient(argv, {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    stderrIsTerminal: process.stderr.isTTY,
  });
}
