import type { CliIo } from '../main.ts';

/**
 * `quire sync DIR --url URL --key KEY --version SLUG [--publish] [--prune] [--dry-run]`: pushes a
 * folder to a Quire over HTTP (extensions §7). It opens no database: it is a client of the API.
 */
export async function runSync(args: string[], io: CliIo): Promise<number> {
  io.stderr(`quire: sync is not available in this build (${args.length} arguments ignored)\n`);
  return 1;
}
