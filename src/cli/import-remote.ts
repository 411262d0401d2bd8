import { readFile } from 'node:fs/promises';
import { UsageError } from './args.ts';
import { oneLine, type ClientContext } from './output.ts';
import { command, type ParsedInput } from './spec.ts';
import { SERVER_OPTIONS, serverOptions } from './sync/sync.args.ts';
import { SyncHttp } from './sync/sync.http.ts';

export const IMPORT_FLAGS = {
  draft: {
    type: 'boolean',
    description: 'import every page as a draft (published bodies are not published)',
  },
  strict: { type: 'boolean', description: 'refuse the archive if any file cannot be read' },
} as const;

const REMOTE_IMPORT_OPTIONS = { ...SERVER_OPTIONS, ...IMPORT_FLAGS } as const;

/**
 * `quire import FILE.zip` against a server: `POST /import` with the archive as its raw body, under one
 * Idempotency-Key that its retries reuse (a retried pipeline imports once). It prints the server's
 * report; exit 1 when the server refuses the archive or cannot be reached, 2 on a usage error.
 */
export async function importOverHttp(
  { io, policy }: ClientContext,
  input: ParsedInput<typeof REMOTE_IMPORT_OPTIONS>,
): Promise<number> {
  let server;
  let bytes: Buffer;
  const file = input.positionals[0] ?? '';
  try {
    server = serverOptions(input.values);
    bytes = await readFile(file).catch((error: { code?: string }) => {
      throw new UsageError(`cannot read ${file} (${error.code ?? 'unreadable'})`);
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`quire: import: ${oneLine(error.message)}\n`);
    return 2;
  }
  const notice = (line: string) => io.stderr(`quire: import: ${oneLine(line)}\n`);
  const http = new SyncHttp(server.apiBase, server.key, notice, policy);
  const query = `published=${input.values.draft === true ? 'draft' : 'keep'}&strict=${input.values.strict === true}`;
  io.stderr(`quire: import: sending ${file} (${bytes.length} bytes)\n`);
  try {
    const answer = await http.write('POST', `/import?${query}`, {
      text: new Uint8Array(bytes),
      contentType: 'application/zip',
    });
    io.stdout(`${JSON.stringify(JSON.parse(answer.text))}\n`);
    return 0;
  } catch (error) {
    notice(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

export const REMOTE_IMPORT_COMMAND = command<ClientContext, number, typeof REMOTE_IMPORT_OPTIONS>({
  summary: 'Import an export archive (or a Git-format repository as a ZIP) into the key’s project over HTTP',
  args: ['FILE.zip'],
  options: REMOTE_IMPORT_OPTIONS,
  examples: ['QUIRE_URL=https://docs.acme.io QUIRE_KEY=qk_... quire import export.zip --draft'],
  run: importOverHttp,
});
